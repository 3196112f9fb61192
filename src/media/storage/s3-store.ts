// The media store in an S3-compatible bucket (CONTRACT §27), through the AWS SDK v3: objects are
// written whole (PutObject, or a multipart upload through lib-storage that is aborted when it
// fails, so no part is left behind), read with ranges, and listed and deleted by prefix.
// Every request is counted (op, ok) for the metrics; a store that cannot be reached or refuses
// (no answer, 5xx, credentials or bucket refused) throws StoreUnavailableError.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { contentTypeOf } from './content-types.js';
import { contentDirRel } from './keys.js';
import type { ByteRange, LocalCopy, MediaStore, PutOptions, StoredObject, StoreObserver } from '../../shared/media-store.js';
import { StoreUnavailableError } from './store-errors.js';

export interface S3StoreOptions {
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
  /** The node's scratch directory (DATA_DIR/tmp). */
  scratchRoot: string;
  observe?: StoreObserver;
}

/** Files at least this large go up as a multipart upload (parts of this size). */
export const PART_SIZE = 8 * 1024 * 1024;
/** Tries at aborting the parts of a failed multipart upload, and the pause between them (10 minutes in all). */
const ABORT_TRIES = 120;
const ABORT_RETRY_MS = 5_000;
/** DeleteObjects takes at most this many keys. */
const DELETE_BATCH = 1000;

type SdkError = { name?: string; $metadata?: { httpStatusCode?: number } };

/** Errors of a connection that failed or broke (the SDK passes them on when its retries are spent). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);

/**
 * Whether an error of the SDK means the store cannot be used now (no answer, 5xx, credentials or
 * bucket refused) rather than a missing object or a bad request. Errors that are not the SDK's
 * or the network's (tus's own, a full local disk) are not.
 */
export function meansUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as SdkError & { code?: string; $fault?: string };
  if (e.$metadata !== undefined || e.$fault !== undefined) {
    const status = e.$metadata?.httpStatusCode;
    if (status === undefined) return true; // no answer: refused connection, reset, time-out
    return status >= 500 || status === 401 || status === 403 || e.name === 'NoSuchBucket';
  }
  return NETWORK_CODES.has(e.code ?? '') || e.name === 'TimeoutError';
}

export const isNotFound = (err: unknown) => {
  const e = err as SdkError;
  return e?.$metadata?.httpStatusCode === 404 && e.name !== 'NoSuchBucket';
};

const withdrawnMarker = (contentId: string) => `.withdrawn/${contentId}`;

/** The error a writer meets when the content item it writes for was withdrawn meanwhile (as the local store's tombstone). */
const withdrawnError = (key: string) => Object.assign(new Error(`content of ${key} was withdrawn`), { code: 'ENOTDIR' });

export class S3MediaStore implements MediaStore {
  readonly kind = 's3' as const;
  readonly name: string;
  readonly client: S3Client;
  readonly bucket: string;
  /** The client's settings (for @tus/s3-store, which makes a client of its own). */
  readonly clientConfig: S3ClientConfig;
  /** Counts one request to the store (the metrics). */
  readonly observe: StoreObserver;
  private readonly scratchRoot: string;

  constructor(options: S3StoreOptions) {
    this.bucket = options.bucket;
    this.name = `s3:${options.bucket}${options.endpoint ? `@${new URL(options.endpoint).host}` : ''}`;
    this.observe = options.observe ?? (() => undefined);
    this.scratchRoot = path.join(options.scratchRoot, 'media-work');
    this.clientConfig = {
      endpoint: options.endpoint,
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      credentials: options.accessKeyId && options.secretAccessKey ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } : undefined,
      // A store that is away is told quickly (one retry), not after the SDK's default back-off.
      maxAttempts: 2,
      requestHandler: { connectionTimeout: 2_000, requestTimeout: 30_000 },
    };
    this.client = new S3Client(this.clientConfig);
  }

  async putFile(key: string, file: string, options: PutOptions = {}): Promise<void> {
    const { size } = await fs.promises.stat(file);
    if (size < PART_SIZE) {
      await this.putBuffer(key, await fs.promises.readFile(file));
    } else {
      const upload = new Upload({
        client: this.client,
        params: { Bucket: this.bucket, Key: key, Body: fs.createReadStream(file), ContentType: contentTypeOf(key) },
        partSize: PART_SIZE,
        queueSize: 2,
        leavePartsOnError: false,
      });
      try {
        await this.call('multipart_upload', () => upload.done());
      } catch (err) {
        // lib-storage aborts the upload on failure; a store that went away refuses that too, so
        // the parts are aborted again once it answers.
        this.abortLeftParts(key);
        throw err;
      }
      await this.refuseWithdrawn(key);
    }
    if (options.move) await fs.promises.rm(file, { force: true });
  }

  async putBuffer(key: string, data: Buffer): Promise<void> {
    await this.call('put', () => this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: data, ContentType: contentTypeOf(key) })));
    await this.refuseWithdrawn(key);
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const head = await this.call('head', () => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key })), isNotFound);
      return { size: head.ContentLength ?? 0, etag: head.ETag ?? `"${key}"`, lastModified: head.LastModified ?? new Date(0) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const object = await this.call('get', () =>
      this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined })),
    );
    return object.Body as Readable;
  }

  async localCopy(key: string, scratchDir: string): Promise<LocalCopy> {
    await fs.promises.mkdir(scratchDir, { recursive: true });
    const file = path.join(scratchDir, `${randomUUID()}${path.extname(key)}`);
    const release = () => fs.promises.rm(file, { force: true });
    try {
      await this.call('download', async () => pipeline(await this.read(key), fs.createWriteStream(file)));
    } catch (err) {
      await release();
      throw err;
    }
    return { path: file, release };
  }

  scratchFor(prefix: string): string {
    return path.join(this.scratchRoot, ...prefix.split('/').filter((s) => s && s !== '..' && s !== '.'));
  }

  async delete(key: string): Promise<void> {
    await this.call('delete', () => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })));
  }

  async deletePrefix(prefix: string): Promise<void> {
    const keys = await this.list(prefix);
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      const out = await this.call('delete_many', () =>
        this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } })),
      );
      if (out.Errors?.length) throw new StoreUnavailableError(`the store kept ${out.Errors.length} objects under ${prefix}`);
    }
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.call('list', () =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: `${prefix.replace(/\/+$/, '')}/`, ContinuationToken: token })),
      );
      for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  /** The keys at the bucket's root (no "directory"): the objects of unfinished resumable uploads. */
  async listRoot(): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.call('list', () => this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Delimiter: '/', ContinuationToken: token })));
      for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  /** Aborts every unfinished multipart upload of `key` (their parts go). */
  async abortMultipart(key: string): Promise<void> {
    const open = await this.call('list_multipart', () => this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: key })));
    for (const upload of open.Uploads ?? []) {
      if (upload.Key !== key || !upload.UploadId) continue;
      await this.call('abort_multipart', () => this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: upload.UploadId })));
    }
  }

  /**
   * An empty marker object (.withdrawn/<id>: a hidden key, never served) first, then every object
   * under content/<id>/ removed: a writer that put an object before the marker is listed and
   * removed here; one after it sees the marker (refuseWithdrawn) and removes its own (S3 reads
   * are strongly consistent). The marker holds nothing but the item's id.
   */
  async withdrawContent(contentId: string): Promise<void> {
    await this.call('put', () => this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: withdrawnMarker(contentId), Body: Buffer.alloc(0) })));
    await this.deletePrefix(contentDirRel(contentId));
  }

  async signedUrl(key: string, seconds: number, downloadName?: string): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: downloadName ? `attachment; filename="${downloadName}"` : undefined,
    });
    return getSignedUrl(this.client, command, { expiresIn: seconds });
  }

  async check(): Promise<void> {
    await this.call('head_bucket', () => this.client.send(new HeadBucketCommand({ Bucket: this.bucket })));
  }

  /**
   * Aborts the unfinished multipart uploads of `key` (parts of a failed upload), trying again
   * while the store cannot be reached, for at most ABORT_TRIES tries, in the background.
   */
  private abortLeftParts(key: string, attempt = 1): void {
    const retry = () => {
      if (attempt < ABORT_TRIES) setTimeout(() => this.abortLeftParts(key, attempt + 1), ABORT_RETRY_MS).unref();
    };
    this.abortMultipart(key).catch(retry);
  }

  /** Removes an object just written for a content item that was withdrawn meanwhile, and says so. */
  private async refuseWithdrawn(key: string): Promise<void> {
    const m = /^content\/([^/]+)\//.exec(key);
    if (!m) return;
    if (!(await this.stat(withdrawnMarker(m[1])))) return;
    await this.delete(key);
    throw withdrawnError(key);
  }

  /** Runs one request, counts it, and turns "cannot be reached or refuses" into StoreUnavailableError. */
  private async call<T>(op: string, request: () => Promise<T>, expected: (err: unknown) => boolean = () => false): Promise<T> {
    try {
      const out = await request();
      this.observe(op, true);
      return out;
    } catch (err) {
      const unavailable = meansUnavailable(err) && !(err instanceof StoreUnavailableError);
      this.observe(op, expected(err));
      if (unavailable)
        throw new StoreUnavailableError(`the media store failed (${op}): ${(err as Error).name ?? ''} ${(err as Error).message ?? ''}`.trim(), { cause: err });
      throw err;
    }
  }
}
