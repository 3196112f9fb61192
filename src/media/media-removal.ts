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
   * Withdraws the media of a content item that is deleted or removed by moderation (committed). Safe to
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
    // Each item is tried once per sweep: one that fails, or that the query still names after its
    // withdrawal (it would be named for ever), is left for the next run and cannot hold this one.
    const tried = new Set<string>();
    for (;;) {
      const ids = await this.contents.deletedAwaitingMediaRemoval(SWEEP_BATCH + tried.size);
      const todo = ids.filter((id) => !tried.has(id));
      if (todo.length === 0) return done;
      for (const id of todo) {
        tried.add(id);
        try {
          await this.withdraw(id);
          done++;
        } catch (err) {
          // Left for the next run; the others still go.
          this.app.log.error({ err, contentId: id }, 'could not remove the media of deleted content');
        }
      }
    }
  }
}
