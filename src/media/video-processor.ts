// Processes one claimed video job end to end: runs the media pipeline in a private work
// directory, moves the results into place, records the outcome on the job and the content item
// in one transaction, then publishes video.completed / video.failed. Progress is published as
// video.progress (at most about once a second per job).
// The original is read from the media store and the results are put there (CONTRACT §27); the
// work is done in a directory of the node (MediaStore.scratchFor), removed after every attempt. A
// store that cannot be reached gives the job back for later, with a growing delay, without
// counting the attempt: the video is not at fault.
// Each attempt has a wall-clock limit (VIDEO_JOB_TIMEOUT_SECONDS): past it ffmpeg is killed and the
// job fails for good (a file that took that long once will take it again).
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/client.js';
import type { NotificationService } from '../notifications/index.js';
import type { ContentRepository } from '../content/index.js';
import { videoSummary } from '../content/index.js';
import { InvalidMediaError, ProcessingAbortedError, mediaTools } from './ffmpeg.js';
import { runVideoPipeline, type ProcessingStage } from './pipeline.js';
import { VideoLimitError, videoLimits } from './probe.js';
import { MASTER_PLAYLIST } from './hls.js';
import { IncompleteOutputError } from './output-check.js';
import { mentionsStorageUnavailable } from './storage-errors.js';
import { contentDirRel, hlsDirRel, thumbnailRelPath } from './storage/keys.js';
import { isStoreUnavailable } from './storage/store-errors.js';
import type { LocalCopy, MediaStore } from '../shared/media-store.js';
import type { ClaimedJob, VideoJobRepository } from './video-job-repository.js';

export interface JobRun {
  job: ClaimedJob;
  workerId: string;
  signal: AbortSignal;
  /** Re-checks the claim (extends the lease); false when it was lost. */
  stillOwned: () => Promise<boolean>;
}

const PROGRESS_INTERVAL_MS = 1000;
const STORAGE_UNAVAILABLE_MESSAGE = 'the media storage ran out of space or cannot be written; upload the video again later';
/** Below this much free space a failed run is put down to the storage (see storageLow). */
const MIN_FREE_BYTES = 1024 * 1024;
const PROCESSING_FAILED_MESSAGE = 'the video could not be processed';
/** Delays before a job that met an unreachable store is tried again: doubling, capped. */
const STORE_RETRY_FIRST_SECONDS = 2;
const STORE_RETRY_MAX_SECONDS = 60;

/**
 * Files of a finished rendition in the order they are put in the store: segments, then the
 * rungs' playlists, then the master playlist, so a playlist never names a segment not yet there.
 */
function publishOrder(files: string[]): string[] {
  const rank = (f: string) => (f.endsWith('.m3u8') ? (f.includes('/') ? 1 : 2) : 0);
  return [...files].sort((a, b) => rank(a) - rank(b));
}

/** How often a running transcode's finished segments are looked for (SegmentShipper). */
const SHIP_INTERVAL_MS = 1000;

/**
 * Puts the segments of a running transcode in the store as ffmpeg finishes them, so a bucket
 * receives the rendition while it is made (the local files stay for the check of the whole run's
 * outputs): a segment is finished once a later one of the same rung exists. Its names carry the run's token, and no
 * playlist names it until the run is done, so it is never served early. A failure stops the
 * shipping; the run then meets the same store at its end.
 */
class SegmentShipper {
  private timer: NodeJS.Timeout | null;
  private running: Promise<void> = Promise.resolve();
  private failed: unknown = null;

  constructor(
    private readonly media: MediaStore,
    private readonly dir: string,
    private readonly prefix: string,
    private readonly written: Set<string>,
  ) {
    this.timer = setInterval(() => {
      if (this.failed === null) this.running = this.running.then(() => this.ship()).catch((err) => void (this.failed = err));
    }, SHIP_INTERVAL_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Waits for the shipping under way; a store that could not be reached is not reported here (the end meets it). */
  async done(): Promise<void> {
    await this.running;
  }

  private async ship(): Promise<void> {
    const rungs = await fs.promises.readdir(this.dir, { withFileTypes: true }).catch(() => [] as fs.Dirent[]);
    for (const rung of rungs.filter((e) => e.isDirectory())) {
      const segments = (await fs.promises.readdir(path.join(this.dir, rung.name))).filter((f) => f.endsWith('.ts')).sort();
      for (const segment of segments.slice(0, -1)) {
        const key = `${this.prefix}/${rung.name}/${segment}`;
        if (this.written.has(key)) continue;
        await this.media.putFile(key, path.join(this.dir, rung.name, segment));
        this.written.add(key);
      }
    }
  }
}

export class VideoProcessor {
  /** Jobs of this node that met an unreachable store, and how often in a row (for the delay). */
  private readonly storeWaits = new Map<string, number>();

  constructor(
    private readonly app: AppContext,
    private readonly jobs: VideoJobRepository,
    private readonly contents: ContentRepository,
    private readonly notifications: NotificationService,
  ) {}

  async process(run: JobRun): Promise<void> {
    const { job } = run;
    const { config, log } = this.app;
    const content = await this.contents.findMedia(job.contentId);
    if (!content) {
      await this.jobs.finish(job.id, run.workerId, 'failed', 'content no longer exists');
      return;
    }
    const uploaderId = content.uploader_id;
    if (job.attempts > job.maxAttempts) {
      await this.fail(run, uploaderId, 'video.error.processing_failed', `processing gave up after ${job.maxAttempts} attempts`);
      return;
    }
    const { media } = this.app;
    let original: LocalCopy;
    const scratch = media.scratchFor(contentDirRel(job.contentId));
    // Work directories of earlier attempts (a worker that died, a node that was killed) go first.
    for (const entry of await fs.promises.readdir(scratch).catch(() => [] as string[])) {
      if (entry.startsWith('.work-')) await fs.promises.rm(path.join(scratch, entry), { recursive: true, force: true });
    }
    const attemptToken = `${job.id.slice(0, 8)}${job.attempts}`;
    const workDir = path.join(scratch, `.work-${job.id}-${job.attempts}`);
    try {
      if (!(await media.stat(job.inputPath))) {
        await this.fail(run, uploaderId, 'video.error.missing_original', 'the uploaded video file is missing');
        return;
      }
      original = await media.localCopy(job.inputPath, workDir);
    } catch (err) {
      await fs.promises.rm(workDir, { recursive: true, force: true }).catch(() => undefined);
      if (isStoreUnavailable(err)) return this.waitForStore(run, err);
      throw err;
    }
    const input = original.path;

    // One signal for the media work: the worker's (stop, lost claim) or this attempt's time limit.
    const work = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      work.abort();
    }, config.VIDEO_JOB_TIMEOUT_SECONDS * 1000);
    const onWorkerAbort = () => work.abort();
    run.signal.addEventListener('abort', onWorkerAbort, { once: true });
    if (run.signal.aborted) work.abort();
    let lastSent = 0;
    let lastStage: ProcessingStage | null = null;
    const onStage = (stage: ProcessingStage, percent: number, force = false) => {
      const now = Date.now();
      if (!force && stage === lastStage && now - lastSent < PROGRESS_INTERVAL_MS) return;
      lastStage = stage;
      lastSent = now;
      this.app.events.publish('video.progress', { uploaderId, contentId: job.contentId, stage, percent });
    };

    const hlsRel = hlsDirRel(job.contentId);
    // Keys this run put in the store; a run that fails takes them out again.
    const written = new Set<string>();
    const early = media.kind === 's3' ? new SegmentShipper(media, path.join(workDir, 'hls'), hlsRel, written) : null;
    try {
      const result = await runVideoPipeline({
        tools: mediaTools(config),
        input,
        workDir,
        segmentPrefix: attemptToken,
        limits: videoLimits(config),
        signal: work.signal,
        onStage,
      }).finally(() => early?.stop());
      await early?.done();
      if (!(await run.stillOwned())) throw new ProcessingAbortedError();

      // Into the store: the new rendition replaces any earlier one (its segments have other
      // names: the run's token), whose objects go once the new ones are in place.
      const earlier = (await media.list(contentDirRel(job.contentId))).filter((key) => !written.has(key));
      const made = (await fs.promises.readdir(result.hlsDir, { recursive: true, withFileTypes: true }))
        .filter((e) => e.isFile())
        .map((e) => path.relative(result.hlsDir, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
      for (const file of publishOrder(made)) {
        const key = `${hlsRel}/${file}`;
        if (written.has(key)) continue;
        await media.putFile(key, path.join(result.hlsDir, ...file.split('/')), { move: true });
        written.add(key);
      }
      const thumbRel = thumbnailRelPath(job.contentId, attemptToken);
      await media.putFile(thumbRel, result.thumbnailFile, { move: true });
      written.add(thumbRel);
      const thumbnailPrefix = `${contentDirRel(job.contentId)}/thumbnail-`;
      for (const key of earlier) {
        const stale = key.startsWith(`${hlsRel}/`) || (key.startsWith(thumbnailPrefix) && key.endsWith('.jpg'));
        if (stale && !written.has(key)) await media.delete(key);
      }
      const size = (await fs.promises.stat(input)).size;
      // Gone before the job reads as completed: nothing of the run is left behind once it is.
      await original.release();
      await fs.promises.rm(workDir, { recursive: true, force: true });

      const updated = await this.app.database.transaction(async (tx) => {
        if (!(await this.jobs.in(tx).finish(job.id, run.workerId, 'completed', null))) return null;
        const completed = await this.contents.in(tx).markVideoCompleted(job.contentId, {
          resolution: `${result.probe.width}x${result.probe.height}`,
          duration: result.probe.duration,
          size,
          playlist_path: `${hlsRel}/${MASTER_PLAYLIST}`,
          thumbnail_path: thumbRel,
        });
        if (completed) await this.notifyUploader(tx, job.id, uploaderId, job.contentId, 'video.completed', {});
        return completed;
      });
      written.clear(); // recorded (or the job is another worker's now): no longer this run's to take back
      onStage('finalizing', 100, true);
      if (updated) {
        this.notifications.deliverSoon();
        await this.app.events.publishAndWait('video.completed', { uploaderId, contentId: job.contentId, video: videoSummary(config, updated.video) });
      }
      log.info({ jobId: job.id, contentId: job.contentId, duration: result.probe.duration, rungs: result.rungs.map((r) => r.name) }, 'video processed');
      this.storeWaits.delete(job.id);
    } catch (err) {
      // What the run wrote goes (and its room is freed) before the job reads as failed; what it
      // put in the store is of no rendition and goes too (an earlier one, if any, stays whole).
      await fs.promises.rm(workDir, { recursive: true, force: true }).catch(() => undefined);
      await early?.done();
      for (const key of written) await media.delete(key).catch(() => undefined);
      if (run.signal.aborted) throw new ProcessingAbortedError();
      if (isStoreUnavailable(err)) {
        await this.waitForStore(run, err);
      } else if (timedOut) {
        await this.fail(run, uploaderId, 'video.error.timed_out', `processing took longer than the limit of ${config.VIDEO_JOB_TIMEOUT_SECONDS} s`);
      } else if (err instanceof ProcessingAbortedError) {
        throw err;
      } else if (err instanceof VideoLimitError) {
        await this.fail(run, uploaderId, `video.error.${err.reason}`, err.message);
      } else if (err instanceof InvalidMediaError) {
        await this.fail(run, uploaderId, 'video.error.invalid_video', err.message);
      } else if (mentionsStorageUnavailable(err) || err instanceof IncompleteOutputError || (await this.storageLow(workDir, input))) {
        // Out of space (or a storage turned read-only), also when ffmpeg exited 0 and only its
        // outputs show it: ends failed at once, with a clean reason; what ffmpeg or the file
        // system said stays in the log and on the job.
        log.warn({ jobId: job.id, err: (err as Error).message.slice(0, 500) }, 'video processing ran out of storage');
        await this.fail(run, uploaderId, 'video.error.storage_unavailable', STORAGE_UNAVAILABLE_MESSAGE, (err as Error).message.slice(0, 500));
      } else if (job.attempts < job.maxAttempts) {
        const reason = (err as Error).message.slice(0, 500);
        log.warn({ jobId: job.id, attempt: job.attempts, err: reason }, 'video processing failed; will retry');
        await this.jobs.requeue(job.id, run.workerId, reason, 5 * job.attempts);
      } else {
        // The client gets a plain reason; ffmpeg's own words stay on the job (and in the log).
        log.warn({ jobId: job.id, err: (err as Error).message.slice(0, 500) }, 'video processing failed for good');
        await this.fail(
          run,
          uploaderId,
          'video.error.processing_failed',
          PROCESSING_FAILED_MESSAGE,
          `processing failed: ${(err as Error).message.slice(0, 500)}`,
        );
      }
    } finally {
      clearTimeout(timer);
      run.signal.removeEventListener('abort', onWorkerAbort);
      await original.release().catch(() => undefined);
      await fs.promises.rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /** The store could not be reached: the job goes back to the queue for later, its attempt not counted. */
  private async waitForStore(run: JobRun, err: Error): Promise<void> {
    const waits = (this.storeWaits.get(run.job.id) ?? 0) + 1;
    this.storeWaits.set(run.job.id, waits);
    const delay = Math.min(STORE_RETRY_MAX_SECONDS, STORE_RETRY_FIRST_SECONDS * 2 ** (waits - 1));
    this.app.log.warn({ jobId: run.job.id, delay, err: err.message.slice(0, 500) }, 'media store unavailable: video processing waits');
    await this.jobs.requeueUncounted(run.job.id, run.workerId, `media store unavailable: ${err.message.slice(0, 400)}`, delay);
  }

  /**
   * Whether the media storage (the bucket's: the scratch disk) has less room left than the original takes (processing writes about
   * as much again): a failure then is put down to the storage, whatever words the tool found.
   */
  private async storageLow(workDir: string, input: string): Promise<boolean> {
    try {
      const disk = this.app.media.kind === 'local' ? this.app.config.mediaDir : path.dirname(workDir);
      const [stats, original] = await Promise.all([fs.promises.statfs(disk), fs.promises.stat(input)]);
      return stats.bavail * stats.bsize < Math.max(original.size, MIN_FREE_BYTES);
    } catch {
      return false;
    }
  }

  /**
   * Ends the job failed: `reason` is what the owner sees (detail `video.error_message`,
   * `video:failed`, the notification), never a tool's output; `internalReason` (default: the
   * same) is kept on the job for operators.
   */
  private async fail(run: JobRun, uploaderId: string, errorCode: string, reason: string, internalReason = reason): Promise<void> {
    const updated = await this.app.database.transaction(async (tx) => {
      if (!(await this.jobs.in(tx).finish(run.job.id, run.workerId, 'failed', internalReason))) return null;
      const failed = await this.contents.in(tx).markVideoFailed(run.job.contentId, errorCode, reason);
      if (failed) await this.notifyUploader(tx, run.job.id, uploaderId, run.job.contentId, 'video.failed', { error_code: errorCode, message: reason });
      return failed;
    });
    if (updated) {
      this.notifications.deliverSoon();
      this.app.events.publish('video.failed', { uploaderId, contentId: run.job.contentId, error_code: errorCode, message: reason });
      this.app.log.warn({ jobId: run.job.id, contentId: run.job.contentId, reason }, 'video processing failed');
    }
  }

  /** The uploader's video.completed / video.failed notification, once per job (a job finishes once; the key makes sure). */
  private notifyUploader(
    tx: Queryable,
    jobId: string,
    uploaderId: string,
    contentId: string,
    type: 'video.completed' | 'video.failed',
    data: Record<string, unknown>,
  ) {
    return this.notifications.notify(tx, {
      userId: uploaderId,
      type,
      actorId: null,
      subject: { type: 'content', id: contentId },
      data,
      dedupeKey: `${type}:${jobId}`,
    });
  }
}
