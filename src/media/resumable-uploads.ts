// The rules of resumable (tus) uploads, CONTRACT §24, on top of the protocol (http/resumable.ts
// speaks it through @tus/server). An upload is created for a content item its uploader may
// manage, with a declared size within the multipart route's limits; only its uploader may touch
// it; when its last byte lands the file gets the checks of the upload route and is handed to the
// item through the same function as the multipart form (UploadService.attachToContent); a refused
// file leaves nothing behind. Unfinished uploads expire RESUMABLE_UPLOAD_TTL seconds after their
// creation and the sweep (jobs/resumable-expiry.ts) removes their bytes.
import { z } from 'zod';
import { LRUCache } from 'lru-cache';
import type { AppContext } from '../context.js';
import type { Caller } from '../shared/caller.js';
import { AppError, badRequest, conflict, notFound } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { KeyedThrottle } from '../shared/keyed-throttle.js';
import type { UploadService } from './upload-service.js';
import type { ResumableUploadRepository, ResumableUploadRow } from './resumable-upload-repository.js';
import { UploadRecords } from './resumable-store.js';
import { createResumableBytes, type ResumableBytes } from './storage/resumable-bytes.js';
import type { LocalCopy } from '../shared/media-store.js';
import { isStoreUnavailable, storeUnreachable } from './storage/store-errors.js';
import { LeaseLocker } from './resumable-lock.js';
import { isStorageUnavailable, storageUnavailable } from './storage-errors.js';

/** At most 4 progress events a second per upload (CONTRACT §24). */
const PROGRESS_INTERVAL_MS = 250;
/** A completion whose node died mid-way may be taken up again after this long. */
const STALE_COMPLETION_SECONDS = 300;
/** Expired uploads removed per query of the sweep. */
const SWEEP_BATCH = 100;
/** How a resumable upload's file is named in error details (it has no form field). */
const FILE_FIELD = 'file';

/**
 * Upload-Metadata of a creation (tus: key, space, base64 value; parsed by the library). Values a
 * client sends without a value arrive as null.
 */
const creationMetadata = z.object({
  content_id: z.string({ error: 'required' }).max(100),
  filename: z.string().max(1024).nullish(),
  filetype: z.string().max(255).nullish(),
  topic_key: z.string().trim().min(1).max(64).nullish(),
});

export interface NewUpload {
  id: string;
  /** Upload-Length; undefined when the client deferred it (not accepted). */
  size: number | undefined;
  metadata: Record<string, string | null> | undefined;
}

const uploadNotFound = () => notFound('upload.error.not_found', 'No such upload');

export class ResumableUploads {
  /** Where the bytes of unfinished uploads live (src/media/storage/resumable-bytes.ts). */
  readonly bytes: ResumableBytes;
  readonly locker: LeaseLocker;
  private readonly progress: KeyedThrottle;
  private readonly latestOffsets = new Map<string, number>();
  /** Who to tell about an upload's progress (fixed for its life). */
  private readonly progressTargets = new LRUCache<string, Pick<ResumableUploadRow, 'user_id' | 'content_id' | 'size'>>({ max: 10_000 });

  constructor(
    private readonly app: AppContext,
    private readonly uploads: ResumableUploadRepository,
    private readonly files: UploadService,
  ) {
    this.bytes = createResumableBytes(app.media, new UploadRecords(uploads), (id, offset) => this.reportProgress(id, offset));
    this.locker = new LeaseLocker(uploads);
    this.progress = new KeyedThrottle(PROGRESS_INTERVAL_MS, (id) => this.publishProgress(id));
  }

  /** The largest upload accepted (Tus-Max-Size): the largest the multipart route takes for one item. */
  get maxSize(): number {
    return Math.max(this.app.config.MAX_VIDEO_BYTES, this.app.config.MAX_IMAGE_BYTES);
  }

  /**
   * Checks a creation and records its upload: the declared size within the limit of its kind
   * (413), a content item the caller may manage. A main video may be up to MAX_VIDEO_BYTES, an
   * extra image (a topic key) up to MAX_IMAGE_BYTES, as in the multipart form.
   */
  async create(caller: Caller, upload: NewUpload): Promise<ResumableUploadRow> {
    if (upload.size === undefined) {
      throw badRequest('upload.error.length_required', 'Declare the upload size (Upload-Length) at creation', {
        field: 'Upload-Length',
        constraint: 'required',
      });
    }
    const parsed = creationMetadata.safeParse(upload.metadata ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const key = String(issue.path[0] ?? 'Upload-Metadata');
      throw badRequest('upload.error.invalid_metadata', `Upload-Metadata ${key}: ${issue.message}`, { field: key, constraint: issue.message });
    }
    const meta = parsed.data;
    const topicKey = meta.topic_key ?? null;
    const limit = topicKey === null ? this.app.config.MAX_VIDEO_BYTES : this.app.config.MAX_IMAGE_BYTES;
    if (upload.size > limit) {
      throw new AppError(413, 'file.error.too_large', `File exceeds ${limit} bytes`, { field: 'Upload-Length', constraint: `at most ${limit} bytes` });
    }
    if (upload.size === 0) throw badRequest('file.error.empty_file', 'The file is empty', { field: 'Upload-Length', constraint: 'greater than 0' });
    await this.files.manageableContent(caller, meta.content_id);
    return this.uploads.insert({
      id: upload.id,
      userId: caller.userId,
      contentId: meta.content_id,
      topicKey,
      filename: meta.filename ?? '',
      size: upload.size,
      metadata: upload.metadata ?? {},
      ttlSeconds: this.app.config.RESUMABLE_UPLOAD_TTL,
    });
  }

  /** The caller's own live upload; anyone else's, an expired or unknown one: 404. */
  async find(caller: Caller, id: string): Promise<ResumableUploadRow> {
    if (!isUuid(id)) throw uploadNotFound();
    const row = await this.uploads.findLive(id);
    if (!row || row.user_id !== caller.userId) throw uploadNotFound();
    return row;
  }

  /** The number of bytes an unfinished upload holds (the size of its file). */
  offsetOf(id: string): Promise<number | null> {
    return this.bytes.offsetOf(id);
  }

  /**
   * The last byte landed: the file gets the checks of the upload route (a main video: its type by
   * its bytes, then ffprobe's reading as an allowed container, its duration and resolution; an
   * image: type, pixel limit, re-encoding) and goes to its item through the multipart form's own
   * function (a main video into the durable processing queue). A refused file: its bytes and its
   * upload are removed (404 from now on) and the item is unchanged. A passing failure (storage
   * full, database out of reach): the bytes stay and the last PATCH may be sent again.
   */
  async complete(caller: Caller, id: string): Promise<void> {
    const row = await this.uploads.claimCompletion(id, STALE_COMPLETION_SECONDS);
    if (!row) throw conflict('upload.error.completing', 'The upload is already being completed');
    let local: LocalCopy | null = null;
    try {
      local = await this.bytes.localFile(id);
      const file = { filename: row.filename, path: local.path, size: row.size };
      if (row.topic_key === null) await this.files.verifyVideo(file, FILE_FIELD);
      await this.files.attachToContent(caller, { contentId: row.content_id, topicKey: row.topic_key ?? undefined, files: [file], field: FILE_FIELD });
    } catch (err) {
      await local?.release().catch(() => undefined);
      const error = isStoreUnavailable(err) ? storeUnreachable() : isStorageUnavailable(err) ? storageUnavailable() : err;
      const refused = error instanceof AppError && error.status < 500;
      if (!refused && (await this.offsetOf(id)) === row.size) await this.uploads.reopen(id);
      else await this.discard(id);
      throw error;
    }
    // An image was stored re-encoded (the upload's bytes are left); a video was moved away.
    await local.release();
    await this.bytes.remove(id);
    await this.uploads.markCompleted(id);
  }

  /** Forgets a completed upload (its file belongs to its item now). */
  async forget(id: string): Promise<void> {
    await this.uploads.delete(id);
  }

  /** Removes an upload's bytes and its record. */
  private async discard(id: string): Promise<void> {
    await this.bytes.remove(id);
    await this.uploads.delete(id);
  }

  /**
   * Removes expired uploads (their bytes, then their rows) that no request is writing to, and
   * files whose upload row is gone (its item was erased). Returns how many uploads went.
   */
  async sweep(): Promise<number> {
    let removed = 0;
    for (;;) {
      const expired = await this.uploads.listExpired(SWEEP_BATCH);
      const deleted = await this.uploads.deleteExpired(expired);
      for (const id of deleted) await this.bytes.remove(id);
      removed += deleted.length;
      if (expired.length < SWEEP_BATCH) break;
    }
    // A file is created after its row and its row deleted after it (or with it, by the sweep
    // above), so a file without a row has lost its upload.
    const names = await this.bytes.storedIds();
    for (let i = 0; i < names.length; i += SWEEP_BATCH) {
      const batch = names.slice(i, i + SWEEP_BATCH);
      const kept = await this.uploads.existing(batch);
      for (const id of batch) if (!kept.has(id)) await this.bytes.remove(id);
    }
    return removed;
  }

  private reportProgress(id: string, offset: number): void {
    this.latestOffsets.set(id, offset);
    this.progress.touch(id);
  }

  /** Publishes the latest offset of an upload to its uploader (throttled by `progress`). */
  private async publishProgress(id: string): Promise<void> {
    const offset = this.latestOffsets.get(id);
    if (offset === undefined) return;
    let target = this.progressTargets.get(id);
    if (!target) {
      const row = await this.uploads.findLive(id);
      if (!row) return;
      target = { user_id: row.user_id, content_id: row.content_id, size: row.size };
      this.progressTargets.set(id, target);
    }
    // Forgotten once published, unless newer bytes came meanwhile.
    if (this.latestOffsets.get(id) === offset) this.latestOffsets.delete(id);
    this.app.events.publish('upload.progress', { uploaderId: target.user_id, contentId: target.content_id, offset, length: target.size });
  }

  stop(): void {
    this.progress.stop();
  }
}
