// The migration command of docs/operations.md (scripts/media-to-s3.ts) run as ops would run it,
// against the test setup's S3 API server: every media file of a MEDIA_DIR becomes an object
// under the same key, byte for byte (a multipart one too), work files, tombstones and unfinished
// resumable uploads stay behind, and a second run copies nothing again.
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { S3_SKIP_MESSAGE, createTestBucket, s3Available, s3Client } from '../helpers/s3-server.js';

const run = promisify(execFile);
if (!s3Available()) console.warn(S3_SKIP_MESSAGE);

describe.skipIf(!s3Available())('scripts/media-to-s3.ts', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-migrate-'));
  const mediaDir = path.join(dataDir, 'media');
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const put = (rel: string, data: Buffer) => {
    fs.mkdirSync(path.dirname(path.join(mediaDir, rel)), { recursive: true });
    fs.writeFileSync(path.join(mediaDir, rel), data);
    return data;
  };

  it('should copy MEDIA_DIR into the bucket and check it, and copy nothing twice', { timeout: 120_000 }, async () => {
    const files = {
      'uploads/u1/0b6f2e4c-1f7e-4c1e-9a43-6f1c2d3e4f50.jpg': put('uploads/u1/0b6f2e4c-1f7e-4c1e-9a43-6f1c2d3e4f50.jpg', randomBytes(1000)),
      'content/c1/original.mp4': put('content/c1/original.mp4', randomBytes(9 * 1024 * 1024 + 123)),
      'content/c1/hls/360p/ab12_000.ts': put('content/c1/hls/360p/ab12_000.ts', randomBytes(5000)),
      '.exports/e1.zip': put('.exports/e1.zip', randomBytes(300)),
    };
    put('content/c1/.work-job-1/hls/x.ts', randomBytes(10));
    put('content/c1/.partial-1', randomBytes(10));
    put('content/c2', Buffer.alloc(0)); // a deleted item's tombstone
    put(`.resumable/${randomUUID()}`, randomBytes(10));
    const bucket = await createTestBucket();
    const env = { ...process.env, ...bucket.env(), DATA_DIR: dataDir, MEDIA_DIR: mediaDir, LOG_LEVEL: 'silent' };

    const first = await run('npx', ['tsx', 'scripts/media-to-s3.ts'], { env });
    const report = JSON.parse(first.stdout.split('\n').find((l) => l.startsWith('{'))!);
    expect(report).toMatchObject({ copied: 4, alreadyThere: 0, mismatched: [], skippedResumable: 1 });
    expect(await bucket.keys()).toEqual(Object.keys(files).sort());
    const client = s3Client();
    for (const [key, data] of Object.entries(files)) {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket.name, Key: key }));
      expect(Buffer.from(await object.Body!.transformToByteArray()).equals(data)).toBe(true);
    }

    const second = await run('npx', ['tsx', 'scripts/media-to-s3.ts'], { env });
    expect(JSON.parse(second.stdout.split('\n').find((l) => l.startsWith('{'))!)).toMatchObject({ copied: 0, alreadyThere: 4, mismatched: [] });
  });
});
