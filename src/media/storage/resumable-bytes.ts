// Where the bytes of unfinished resumable (tus) uploads live, by the media store (CONTRACT §24,
// §27): on the local store, @tus/file-store's files under MEDIA_DIR/.resumable (one file per
// upload, its size the offset); on a bucket, @tus/s3-store's multipart uploads (an object per
// upload named by its id, beside its `.info` and `.part` objects; /media never serves a key at
// the bucket's root). Either way every node sees the same offset, so an upload started on one
// node continues on another.
import fs from 'node:fs';
import type { DataStore } from '@tus/utils';
import { isUuid } from '../../shared/ids.js';
import { ResumableFileStore, type ProgressListener, type UploadRecords } from '../resumable-store.js';
import type { LocalCopy, MediaStore } from '../../shared/media-store.js';
import { LocalMediaStore } from './local-store.js';
import { ResumableS3Store } from './resumable-s3-store.js';
import { S3MediaStore } from './s3-store.js';

/** The hidden prefix (local: directory) of unfinished uploads. */
export const RESUMABLE_PREFIX = '.resumable';

export interface ResumableBytes {
  /** The tus data store the protocol door writes through. */
  readonly datastore: DataStore;
  /** The number of bytes an unfinished upload holds, or null when it holds none (unknown). */
  offsetOf(id: string): Promise<number | null>;
  /** A finished upload's bytes as a file of this node (for the checks of the upload route). */
  localFile(id: string): Promise<LocalCopy>;
  /** Removes an upload's bytes (nothing when there are none). */
  remove(id: string): Promise<void>;
  /** The ids of every upload that has bytes stored (to find those whose record is gone). */
  storedIds(): Promise<string[]>;
}

class LocalResumableBytes implements ResumableBytes {
  readonly datastore: ResumableFileStore;

  constructor(directory: string, records: UploadRecords, onProgress: ProgressListener) {
    // Made here, synchronously (the store does not make it: resumable-store.ts says why).
    fs.mkdirSync(directory, { recursive: true });
    this.datastore = new ResumableFileStore({ directory, records }, onProgress);
  }

  async offsetOf(id: string): Promise<number | null> {
    const stat = await fs.promises.stat(this.datastore.uploadPath(id)).catch(() => null);
    return stat ? stat.size : null;
  }

  async localFile(id: string): Promise<LocalCopy> {
    return { path: this.datastore.uploadPath(id), release: async () => undefined };
  }

  async remove(id: string): Promise<void> {
    await fs.promises.rm(this.datastore.uploadPath(id), { force: true });
  }

  async storedIds(): Promise<string[]> {
    return (await fs.promises.readdir(this.datastore.directory).catch(() => [] as string[])).filter(isUuid);
  }
}

class S3ResumableBytes implements ResumableBytes {
  readonly datastore: ResumableS3Store;

  constructor(
    private readonly media: S3MediaStore,
    records: UploadRecords,
    onProgress: ProgressListener,
  ) {
    this.datastore = new ResumableS3Store(media, records, onProgress);
  }

  async offsetOf(id: string): Promise<number | null> {
    if (!isUuid(id)) return null;
    try {
      return (await this.datastore.getUpload(id)).offset;
    } catch {
      return null;
    }
  }

  localFile(id: string): Promise<LocalCopy> {
    return this.media.localCopy(id, this.media.scratchFor(RESUMABLE_PREFIX));
  }

  async remove(id: string): Promise<void> {
    if (!isUuid(id)) return;
    await this.media.abortMultipart(id);
    for (const key of [id, `${id}.info`, `${id}.part`]) await this.media.delete(key);
    await this.datastore.forget(id);
  }

  async storedIds(): Promise<string[]> {
    const ids = (await this.media.listRoot()).map((key) => key.replace(/\.(info|part)$/, ''));
    return [...new Set(ids.filter(isUuid))];
  }
}

export function createResumableBytes(media: MediaStore, records: UploadRecords, onProgress: ProgressListener): ResumableBytes {
  if (media instanceof S3MediaStore) return new S3ResumableBytes(media, records, onProgress);
  if (media instanceof LocalMediaStore) return new LocalResumableBytes(media.pathOf(RESUMABLE_PREFIX), records, onProgress);
  throw new Error(`no resumable upload storage for a ${media.kind} media store`);
}
