// Withdrawing the media of a deleted content item (CONTRACT §19: it stops being served at once and
// its files are removed).
//
// Every file of an item lives under MEDIA_DIR/content/<id>/. Withdrawal:
// 1. stops the item's live video job (its worker sees the claim gone at its next heartbeat and
//    kills ffmpeg);
// 2. renames content/<id> to a hidden name (`.removed-…`; the media server never serves dot
//    names), which takes every file out of service in one step, for every node sharing MEDIA_DIR;
// 3. leaves an empty *file* at content/<id> as a tombstone: a writer still holding the item (an
//    upload that passed its checks before the delete, a video job finishing) cannot create
//    content/<id>/… again, because a file is in the way of the directory;
// 4. deletes the hidden tree and records `contents.media_removed_at`.
// The delete request runs this before it answers. The scheduled `media-removal` job
// (jobs/media-removal.ts) runs it for every deleted item without `media_removed_at`, so a node that
// died between the committed delete and the end of the withdrawal leaves nothing behind for good.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import type { AppContext } from '../context.js';
import type { ContentRepository } from '../content/content-repository.js';
import { randomToken } from '../shared/ids.js';
import { mediaPath } from '../shared/media-url.js';
import { contentDirRel } from './storage.js';
import type { VideoJobRepository } from './video-job-repository.js';

/** Deleted items withdrawn per query of the sweep. */
const SWEEP_BATCH = 50;
/** Tries at replacing the directory with the tombstone while a racing writer re-creates it. */
const TOMBSTONE_TRIES = 5;

const removedName = (contentId: string) => `.removed-${contentId}-${randomToken(6)}`;

/**
 * True for a path (relative to MEDIA_DIR, split in segments) that names a tombstone: nothing the
 * service stores sits directly in content/ except item directories and those files.
 */
export const isContentTombstone = (segments: string[]): boolean => segments.length === 2 && segments[0] === 'content';

/** Takes the item's files out of service and deletes them (steps 2-3-4 above, without the database). */
async function withdrawFiles(config: Config, contentId: string): Promise<void> {
  const dir = mediaPath(config, contentDirRel(contentId));
  const parent = path.dirname(dir);
  await fs.promises.mkdir(parent, { recursive: true });
  const hidden: string[] = [];
  let tombstoned = false;
  for (let i = 0; i < TOMBSTONE_TRIES && !tombstoned; i++) {
    const stat = await fs.promises.lstat(dir).catch(() => null);
    if (stat?.isFile()) {
      tombstoned = true;
      break;
    }
    if (stat) {
      const to = path.join(parent, removedName(contentId));
      await fs.promises.rename(dir, to);
      hidden.push(to);
    }
    try {
      await (await fs.promises.open(dir, 'wx')).close();
      tombstoned = true;
    } catch (err) {
      // A writer made the directory again between the rename and the open: take it away again.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  if (!tombstoned) throw new Error(`could not tombstone the media of content ${contentId}`);
  // Hidden trees of an earlier withdrawal that did not finish (a node died) go too.
  const prefix = `.removed-${contentId}-`;
  for (const entry of await fs.promises.readdir(parent)) {
    if (entry.startsWith(prefix)) hidden.push(path.join(parent, entry));
  }
  for (const tree of new Set(hidden)) await fs.promises.rm(tree, { recursive: true, force: true });
}

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
    await withdrawFiles(this.app.config, contentId);
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
