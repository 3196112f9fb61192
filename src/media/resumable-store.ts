/* eslint-disable @typescript-eslint/only-throw-error -- tus answers a thrown { status_code, body } of its ERRORS with that status */
// Where the bytes of tus uploads go: @tus/file-store's FileStore on shared storage (one file per
// upload under MEDIA_DIR/.resumable, its size is the upload's offset, so any node sees the same
// offset), with the upload's record in PostgreSQL instead of FileStore's JSON files beside it.
// Two things are replaced: `write` counts the bytes as they land on disk (progress) and turns a
// full or read-only disk into 507; `create` does the latter too.
import fs from 'node:fs';
import path from 'node:path';
import { AsyncLocalStorage } from 'node:async_hooks';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { FileStore } from '@tus/file-store';
import { ERRORS, Upload, type KvStore } from '@tus/utils';
import type { ResumableUploadRepository } from './resumable-upload-repository.js';
import { isStorageUnavailable, storageUnavailable } from './storage-errors.js';
import { isUuid } from '../shared/ids.js';

/** How often the bytes written by a PATCH are sampled for progress (the events themselves are throttled). */
const PROGRESS_SAMPLE_MS = 100;

/**
 * tus's record of an upload, read from resumable_uploads. The row is written by the creation
 * rule (ResumableUploads.create) before tus creates the file, and holds everything tus keeps
 * (length, metadata, creation date), so `set` has nothing to add.
 */
export class UploadRecords implements KvStore<Upload> {
  constructor(private readonly uploads: ResumableUploadRepository) {}

  async get(id: string): Promise<Upload | undefined> {
    const row = await this.uploads.findLive(id);
    if (!row || row.state === 'completed') return undefined;
    return new Upload({ id, size: row.size, offset: 0, metadata: row.metadata, creation_date: row.created_at.toISOString() });
  }

  async set(id: string): Promise<void> {
    if (!(await this.uploads.findLive(id))) throw ERRORS.FILE_NOT_FOUND;
  }

  async delete(id: string): Promise<void> {
    await this.uploads.delete(id);
  }
}

const chunkedBody = new AsyncLocalStorage<true>();

/**
 * Runs tus's handling of a request whose body came without Content-Length (chunked): its length is
 * known only at its end, so a store that cannot take bytes back (the bucket's parts) holds them
 * until then (ResumableS3Store.write).
 */
export function withChunkedBody<T>(handle: () => Promise<T>): Promise<T> {
  return chunkedBody.run(true, handle);
}

/** Whether the body being written came without Content-Length (inside withChunkedBody). */
export const bodyIsChunked = (): boolean => chunkedBody.getStore() === true;

/**
 * tus's StreamLimiter stops a PATCH body that runs past what it may write (Upload-Length minus the
 * offset: a chunked body has no Content-Length to check first). Its error is a new instance of a
 * class tus does not export, so it is known by its shape: ERR_MAX_SIZE_EXCEEDED's status and text
 * on an Error. Lengths are never deferred here, so the limit it hit is always Upload-Length.
 */
export function isStreamLimit(err: unknown): boolean {
  const failure = err as { status_code?: unknown; body?: unknown } | null;
  return err instanceof Error && failure?.status_code === ERRORS.ERR_MAX_SIZE_EXCEEDED.status_code && failure.body === ERRORS.ERR_MAX_SIZE_EXCEEDED.body;
}

export type ProgressListener = (uploadId: string, offset: number) => void;

export class ResumableFileStore extends FileStore {
  constructor(
    options: { directory: string; records: UploadRecords },
    private readonly onProgress: ProgressListener,
  ) {
    // No expiration period for tus itself: an upload's expiry is its row's (an expired upload is
    // not found, Upload-Expires comes from the row, the sweep removes it), so tus's own checks,
    // which read the record again after a creation-with-upload completed it, stay out of the way.
    super({ directory: options.directory, configstore: options.records });
    // Deferred lengths are refused (the size is checked at creation), so they are not offered.
    this.extensions = ['creation', 'creation-with-upload', 'termination', 'expiration'];
  }

  /** Creates the upload's empty file; when the storage refuses it, its record goes too. */
  override async create(upload: Upload): Promise<Upload> {
    try {
      return await super.create(upload);
    } catch (err) {
      await this.configstore.delete(upload.id).catch(() => undefined);
      throw isStorageUnavailable(err) ? storageUnavailable() : err;
    }
  }

  /**
   * Appends the stream at `offset` and returns the new offset. Every byte written stays: a body
   * that ends early (the client left) leaves the file at the last byte received. A body that runs
   * past Upload-Length (chunked: tus stops it on the way) is refused whole, as one with a
   * Content-Length too large is refused before reading: its bytes are cut off again, so the file
   * never holds a byte past the length, nor a full length the refused PATCH never completed.
   */
  override async write(readable: NodeJS.ReadableStream, id: string, offset: number): Promise<number> {
    const file = fs.createWriteStream(this.uploadPath(id), { flags: 'r+', start: offset });
    // Progress counts the bytes the file stream has written, not bytes still queued before it.
    const reportWritten = () => this.onProgress(id, offset + file.bytesWritten);
    const progress = setInterval(reportWritten, PROGRESS_SAMPLE_MS);
    try {
      await pipeline(readable, file);
    } catch (err) {
      if (isStreamLimit(err)) {
        // The file stream finishes its write in progress before it closes.
        if (!file.closed) await once(file, 'close');
        await fs.promises.truncate(this.uploadPath(id), offset);
        throw err;
      }
      if (isStorageUnavailable(err)) throw storageUnavailable();
      throw ERRORS.FILE_WRITE_ERROR;
    } finally {
      clearInterval(progress);
    }
    reportWritten();
    return offset + file.bytesWritten;
  }

  /** The file holding an upload's bytes. Upload ids are uuids (ours), so the name stays in the directory. */
  uploadPath(id: string): string {
    if (!isUuid(id)) throw ERRORS.FILE_NOT_FOUND;
    return path.join(this.directory, id);
  }
}

// FileStore's constructor starts an fs.mkdir of its directory whose callback throws on failure:
// an uncaught exception, fatal to the process, if the directory's parent goes away meanwhile (a
// node whose start fails and whose data directory is removed at once). ResumableUploads makes the
// directory synchronously before building the store, so the store's own attempt is left out.
// (A private method of FileStore's, so it is replaced by name.)
Reflect.set(ResumableFileStore.prototype, 'checkOrCreateDirectory', () => undefined);
