// Withdrawing the media of a deleted content item (CONTRACT §19: it stops being served at once and
// its files are removed).
//
// Every file of an item is stored under content/<id>/. Withdrawal:
// 1. stops the item's live video job (its worker sees the claim gone at its next heartbeat and
//    kills ffmpeg);
// 2. has the media store take the item's objects out of service and delete them, such that a
//    writer still holding the item cannot put them back (MediaStore.withdrawContent);
// 3. records `contents.media_removed_at`.
// The delete request runs this before it answers. The scheduled `media-removal` job
// (jobs/media-removal.ts) runs it for every deleted item without `media_removed_at`, so a node that
// died between the committed delete and the end of the withdrawal leaves nothing behind for good.
import type { AppContext } from '../context.js';
import type { ContentRepository } from '../content/index.js';
import type { VideoJobRepository } from './video-job-repository.js';

/** Deleted items withdrawn per query of the sweep. */
const SWEEP_BATCH = 50;

export class MediaRemoval {
  constructor(
    private readonly app: AppContext,
    private readonly contents: ContentRepository,
    private readonly jobs: VideoJobRepository,
  ) {}

  /**
   * Withdraws the media of a content item that is deleted (its `deleted_at` is committed). Safe to
   * run again, and on several nodes at once. Throws when the file system refuses; the item then
   * stays without `media_removed_at` for the sweep to retry.
   */
  async withdraw(contentId: string): Promise<void> {
    await this.jobs.failLiveJobs(contentId, 'content deleted');
    await this.app.media.withdrawContent(contentId);
    await this.contents.markMediaRemoved(contentId);
  }

  /** The sweep: withdraws the media of every deleted item still waiting. Returns how many were done. */
  async sweep(): Promise<number> {
    let done = 0;
    const failed = new Set<string>();
    for (;;) {
      const ids = await this.contents.deletedAwaitingMediaRemoval(SWEEP_BATCH + failed.size);
      const todo = ids.filter((id) => !failed.has(id));
      if (todo.length === 0) return done;
      for (const id of todo) {
        try {
          await this.withdraw(id);
          done++;
        } catch (err) {
          // Left for the next run; the others still go.
          failed.add(id);
          this.app.log.error({ err, contentId: id }, 'could not remove the media of deleted content');
        }
      }
    }
  }
}
