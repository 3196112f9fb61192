/* eslint-disable @typescript-eslint/only-throw-error -- tus answers a thrown { status_code, body } of its ERRORS with that status */
// @tus/s3-store's S3Store as the resumable uploads need it (CONTRACT §24, §27): the bytes a PATCH
// brings are counted as they pass (progress), a store that cannot be reached or refuses answers
// 503 `media.error.storage_unavailable`, and a creation the store refuses leaves no record. The
// upload's record stays in PostgreSQL (its expiry, owner and item); the store keeps its own
// `.info` object beside the parts (the multipart upload's id), which any node reads.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { S3Store } from '@tus/s3-store';
import { ERRORS, type Upload } from '@tus/utils';
import { bodyIsChunked, isStreamLimit, type ProgressListener, type UploadRecords } from '../resumable-store.js';
import { isNotFound, meansUnavailable, type S3MediaStore } from './s3-store.js';
import { storeUnreachable } from './store-errors.js';
import { isStorageUnavailable, storageUnavailable } from '../storage-errors.js';

/** Parts of this size (the S3 minimum is 5 MiB); a PATCH ending mid-part keeps its tail as the `.part` object. */
const PART_SIZE = 8 * 1024 * 1024;

export class ResumableS3Store extends S3Store {
  private readonly spoolDir: string;

  constructor(
    media: S3MediaStore,
    private readonly records: UploadRecords,
    private readonly onProgress: ProgressListener,
  ) {
    super({
      partSize: PART_SIZE,
      // Expiry is the record's (Upload-Expires, the sweep), not object tags.
      useTags: false,
      s3ClientConfig: { ...media.clientConfig, bucket: media.bucket },
    });
    // Its requests count in the store's metrics, as `tus`.
    this.client.middlewareStack.add(
      (next) => async (args) => {
        try {
          const out = await next(args);
          media.observe('tus', true);
          return out;
        } catch (err) {
          media.observe('tus', isNotFound(err));
          throw err;
        }
      },
      { step: 'initialize', name: 'countTusRequests' },
    );
    this.spoolDir = media.scratchFor('.resumable-chunked');
    // Deferred lengths are refused (the size is checked at creation), so they are not offered.
    this.extensions = ['creation', 'creation-with-upload', 'termination', 'expiration'];
  }

  override async create(upload: Upload): Promise<Upload> {
    try {
      return await super.create(upload);
    } catch (err) {
      await this.records.delete(upload.id).catch(() => undefined);
      throw meansUnavailable(err) ? storeUnreachable() : err;
    }
  }

  /**
   * The upload as the store has it. @tus/s3-store reads a failed look-up of its `.info` as "no
   * such upload" (404, and clients start again from zero); a store that cannot be reached is 503.
   */
  override async getUpload(id: string): Promise<Upload> {
    try {
      await this.getMetadata(id);
      return await super.getUpload(id);
    } catch (err) {
      if (meansUnavailable(err)) throw storeUnreachable();
      if (isNotFound(err)) throw ERRORS.FILE_NOT_FOUND;
      throw err;
    }
  }

  override async write(readable: NodeJS.ReadableStream, id: string, offset: number): Promise<number> {
    let passed = 0;
    const counter = new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        passed += chunk.length;
        this.onProgress(id, offset + passed);
        done(null, chunk);
      },
    });
    readable.on('error', (err: Error) => counter.destroy(err));
    // The store reads the stream only after a few requests of its own; an error before then (tus
    // stopping a body past Upload-Length) must not go unheard: it is met when the store reads.
    counter.on('error', () => undefined);
    try {
      if (!bodyIsChunked()) return await super.write(readable.pipe(counter), id, offset);
      // A chunked body may run past Upload-Length, which tus learns only when it does; by then the
      // parts it filled would be in the multipart upload, and S3 cannot take a part back. So such
      // a body waits on this node's scratch disk (at most Upload-Length minus the offset, tus's
      // limit) and goes to the store whole once it ended; one stopped past the length keeps
      // nothing, as on the disk. A body cut off by its client ends normally and is kept.
      const spool = path.join(this.spoolDir, `${id}-${randomBytes(6).toString('hex')}`);
      await fs.promises.mkdir(this.spoolDir, { recursive: true });
      try {
        await pipeline(readable.pipe(counter), fs.createWriteStream(spool));
        return await super.write(fs.createReadStream(spool), id, offset);
      } finally {
        await fs.promises.rm(spool, { force: true });
      }
    } catch (err) {
      if (isStreamLimit(err)) throw err;
      if (meansUnavailable(err)) throw storeUnreachable();
      // The node's scratch disk, where a chunked body waits, is full or read-only: 507 as on the disk store.
      if (isStorageUnavailable(err)) throw storageUnavailable();
      throw ERRORS.FILE_WRITE_ERROR;
    }
  }

  /**
   * Ends an upload (tus DELETE): @tus/s3-store aborts the multipart upload and deletes the
   * upload's object and `.info`, but leaves the `.part` tail, bytes the client sent, and knows
   * nothing of the upload's record (the disk's store deletes it with the file).
   */
  override async remove(id: string): Promise<void> {
    try {
      await super.remove(id);
      await this.deleteIncompletePart(id);
      await this.records.delete(id);
    } catch (err) {
      throw meansUnavailable(err) ? storeUnreachable() : err;
    }
  }

  /** Drops what this node cached of an upload (its objects are gone). */
  async forget(id: string): Promise<void> {
    await this.clearCache(id);
  }
}
