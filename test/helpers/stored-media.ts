// What a node keeps of its media, looked at from outside the node: files under MEDIA_DIR, or the
// objects of its bucket read with the S3 SDK (TEST_MEDIA_STORAGE=s3, test/helpers/server.ts). The
// media tests assert through this so the same assertion holds on the disk and in the bucket,
// without trusting the node's own store to report what it did.
import fs from 'node:fs';
import path from 'node:path';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { Config } from '../../src/config.js';

export interface StoredMedia {
  readonly kind: 'local' | 's3';
  /** Whether the object (file) `key` exists, e.g. `content/<id>/original.mp4`. */
  exists(key: string): Promise<boolean>;
  /** The object's bytes; throws when there is none. */
  read(key: string): Promise<Buffer>;
  /** Puts `data` at `key`, as the node would have stored it (a test's stand-in for an upload). */
  write(key: string, data: Buffer | string): Promise<void>;
  /**
   * The ids of the resumable uploads that have bytes or state kept: files under MEDIA_DIR/.resumable,
   * or the tus objects and open multipart uploads at the bucket's root.
   */
  resumableUploads(): Promise<string[]>;
  /** Leaves bytes of a resumable upload `id` behind as the store keeps them (the disk file, or a `.part` tail object). */
  leaveResumable(id: string, data: string): Promise<void>;
  /** The bytes kept of resumable upload `id` (the disk file, or its stored parts and tail object). */
  resumableBytes(id: string): Promise<number>;
  /** The directory of this node where processing of item `contentId` works (beside it, or on the scratch disk). */
  workDir(contentId: string): string;
  /** The work directories (`.work-<job>-<attempt>`) left of item `contentId`'s processing runs. */
  workDirsLeft(contentId: string): string[];
  /** The keys under `prefix/` at any depth, hidden work files (a segment starting with '.') left out, sorted. */
  list(prefix: string): Promise<string[]>;
}

export const mediaInBucket = (): boolean => process.env.TEST_MEDIA_STORAGE === 's3';

const isHidden = (key: string) => key.split('/').some((segment) => segment.startsWith('.'));

export function storedMedia(node: { config: Config }): StoredMedia {
  const config = node.config;
  // Where processing works: the bucket's store downloads into DATA_DIR/tmp/media-work, the disk's
  // works in a hidden directory beside the item (src/media/storage, scratchFor).
  const workDir = (contentId: string) =>
    config.MEDIA_STORAGE === 's3' ? path.join(config.tmpDir, 'media-work', 'content', contentId) : path.join(config.mediaDir, 'content', contentId);
  const workDirsLeft = (contentId: string) => {
    const dir = workDir(contentId);
    return fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.startsWith('.work-')) : [];
  };
  if (config.MEDIA_STORAGE === 's3') return { ...bucketMedia(config), workDir, workDirsLeft };
  const root = config.mediaDir;
  return {
    kind: 'local',
    workDir,
    workDirsLeft,
    exists: async (key) => fs.existsSync(path.join(root, key)) && fs.statSync(path.join(root, key)).isFile(),
    read: async (key) => fs.readFileSync(path.join(root, key)),
    resumableUploads: async () => {
      const dir = path.join(root, '.resumable');
      return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
    },
    leaveResumable: async (id, data) => fs.writeFileSync(path.join(root, '.resumable', id), data),
    resumableBytes: async (id) => fs.statSync(path.join(root, '.resumable', id)).size,
    write: async (key, data) => {
      fs.mkdirSync(path.dirname(path.join(root, key)), { recursive: true });
      fs.writeFileSync(path.join(root, key), data);
    },
    list: async (prefix) => {
      const dir = path.join(root, prefix);
      if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return [];
      return fs
        .readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
        .filter((key) => !isHidden(key))
        .sort();
    },
  };
}

function bucketMedia(config: Config): Omit<StoredMedia, 'workDir' | 'workDirsLeft'> {
  const bucket = config.S3_BUCKET!;
  const client = new S3Client({
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    credentials: { accessKeyId: config.S3_ACCESS_KEY_ID!, secretAccessKey: config.S3_SECRET_ACCESS_KEY! },
    maxAttempts: 1,
  });
  return {
    kind: 's3',
    exists: async (key) => {
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return true;
      } catch (err) {
        if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
        throw err;
      }
    },
    read: async (key) => {
      const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Buffer.from(await out.Body!.transformToByteArray());
    },
    resumableUploads: async () => {
      const ids = new Set<string>();
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Delimiter: '/', ContinuationToken: token }));
        for (const o of page.Contents ?? []) if (o.Key) ids.add(o.Key.replace(/\.(info|part)$/, ''));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      const open = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
      for (const u of open.Uploads ?? []) if (u.Key && !u.Key.includes('/')) ids.add(u.Key);
      return [...ids].sort();
    },
    leaveResumable: async (id, data) => {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: `${id}.part`, Body: data }));
    },
    resumableBytes: async (id) => {
      let total = 0;
      const open = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: id }));
      for (const u of open.Uploads ?? []) {
        if (u.Key !== id) continue;
        const parts = await client.send(new ListPartsCommand({ Bucket: bucket, Key: id, UploadId: u.UploadId }));
        for (const part of parts.Parts ?? []) total += part.Size ?? 0;
      }
      try {
        total += (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: `${id}.part` }))).ContentLength ?? 0;
      } catch (err) {
        if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== 404) throw err;
      }
      return total;
    },
    write: async (key, data) => {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: data }));
    },
    list: async (prefix) => {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix.replace(/\/+$/, '')}/`, ContinuationToken: token }));
        for (const o of page.Contents ?? []) if (o.Key && !isHidden(o.Key)) keys.push(o.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    },
  };
}
