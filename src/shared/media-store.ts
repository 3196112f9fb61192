// The one way to media bytes (CONTRACT §27): every writer and reader of media (uploads,
// processing, HLS, thumbnails, images, avatars, documents, exports, erasure, removals, the parts
// of resumable uploads) goes through a MediaStore, which is the local disk (MEDIA_DIR,
// src/media/storage/local-store.ts) or an S3-compatible bucket (s3-store.ts there). Keys are the
// relative paths of src/media/storage/keys.ts. Nothing else touches media paths; a node's own disk
// (DATA_DIR/tmp) is scratch space. The interface sits in the base because the application context
// (src/context.ts) carries the store every domain reaches media through.
import type { Readable } from 'node:stream';

export interface StoredObject {
  size: number;
  /** A strong validator, quoted as in an ETag header. */
  etag: string;
  lastModified: Date;
}

/** Inclusive byte offsets, as in a Range header. */
export interface ByteRange {
  start: number;
  end: number;
}

/** A file on this node's disk holding an object's bytes, for tools that need a path (ffmpeg, the type sniffer). */
export interface LocalCopy {
  path: string;
  /** Removes the scratch copy (nothing for the local store, whose copy is the stored file). */
  release(): Promise<void>;
}

export interface PutOptions {
  /** The source file is not needed afterwards: the local store renames it instead of copying. */
  move?: boolean;
}

export interface MediaStore {
  readonly kind: 'local' | 's3';
  /** How /readyz names the store (no secret in it). */
  readonly name: string;
  /** Stores a file of this node under `key`: the object is whole or absent, never half-written. */
  putFile(key: string, file: string, options?: PutOptions): Promise<void>;
  putBuffer(key: string, data: Buffer): Promise<void>;
  /** The object's size and validators, or null when there is none. */
  stat(key: string): Promise<StoredObject | null>;
  /** The object's bytes (a range of them); throws when it is missing. */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /** The object as a file of this node, under `scratchDir` when it has to be copied. */
  localCopy(key: string, scratchDir: string): Promise<LocalCopy>;
  /**
   * The directory of this node in which work that makes objects under `prefix` is done: the local
   * store's is beside them (hidden, same file system: finished files are renamed into place), the
   * bucket's is on the node's scratch disk (DATA_DIR/tmp).
   */
  scratchFor(prefix: string): string;
  /** Removes one object (nothing when it is absent). */
  delete(key: string): Promise<void>;
  /** Removes every object under `prefix/`. */
  deletePrefix(prefix: string): Promise<void>;
  /** The keys under `prefix/`, at any depth. */
  list(prefix: string): Promise<string[]>;
  /**
   * Takes a deleted content item's objects out of service and removes them, such that a writer
   * that still holds the item cannot put them back (local: a tombstone file; see the stores).
   */
  withdrawContent(contentId: string): Promise<void>;
  /** A short-lived URL that reads the object straight from the store, or null (the local store). */
  signedUrl(key: string, seconds: number, downloadName?: string): Promise<string | null>;
  /** Throws when the store cannot be reached or refuses (readiness). */
  check(): Promise<void>;
}

/** The outcome of one request to the store, for the metrics (op is a fixed name per kind of request). */
export type StoreObserver = (op: string, ok: boolean) => void;
