// Two server-mode nodes with NO shared directory, their media in one S3 bucket (CONTRACT §27,
// moto started by the test setup): each serves what the other stored, processing on one is
// served by the other, and a multipart upload and a tus upload started on one node continue and
// complete on the other. Server mode only (two nodes need PostgreSQL and Redis).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, testEnvironment } from '../helpers/server.js';
import type { RunningService } from '../../service.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { S3_SKIP_MESSAGE, createTestBucket, s3Available, type TestBucket } from '../helpers/s3-server.js';
import { UPLOAD, contentVideo, createContent, form, makeVideo, scratchDir, waitForJobEnd } from './media-helpers.js';
import { createUpload, headUpload, patchUpload } from './resumable-helpers.js';

if (!s3Available()) console.warn(S3_SKIP_MESSAGE);
const serverMode = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

describe.skipIf(!s3Available() || !serverMode)('two nodes without a shared directory, media in one bucket', () => {
  let bucket: TestBucket;
  let nodeA: RunningService;
  let nodeB: RunningService;
  let cleanup: () => Promise<void>;
  let dataDirB: string;
  let owner: TestUser;
  let clip: Buffer;
  const scratch = scratchDir();

  beforeAll(async () => {
    bucket = await createTestBucket();
    // Only node B processes videos: what A stored, B reads from the bucket, and A serves B's rendition.
    const environment = await testEnvironment({ ...bucket.env(), VIDEO_WORKERS: '0' });
    cleanup = environment.cleanup;
    dataDirB = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-node-b-'));
    nodeA = await startNode(environment.env);
    nodeB = await startNode({ ...environment.env, DATA_DIR: dataDirB, VIDEO_WORKERS: '1' });
    owner = await registerAndLogin({ url: nodeA.url, service: nodeA, dataDir: environment.env.DATA_DIR, env: environment.env, close: async () => undefined });
    clip = await makeVideo(path.join(scratch, 'clip.mp4'), { seconds: 2, size: '320x240' });
  }, 120_000);

  afterAll(async () => {
    await nodeB?.close();
    await nodeA?.close();
    await cleanup?.();
    fs.rmSync(dataDirB, { recursive: true, force: true });
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('should serve on each node what the other stored and processed', { timeout: 120_000 }, async () => {
    expect(nodeA.config.mediaDir).not.toBe(nodeB.config.mediaDir);
    const contentId = await createContent(owner);
    const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: clip, filename: 'clip.mp4' }]) });
    expect(res.status, res.text).toBe(200);
    const original = await fetch(`${nodeB.url}/media/content/${contentId}/original.mp4`);
    expect(original.status).toBe(200);
    expect(Buffer.from(await original.arrayBuffer()).equals(clip)).toBe(true);

    expect(await waitForJobEnd(nodeA, contentId)).toMatchObject({ status: 'completed' });
    const { video } = await contentVideo(nodeA, contentId);
    for (const node of [nodeA, nodeB]) {
      const master = await fetch(`${node.url}/media/${video.playlist_path}`);
      expect(master.status).toBe(200);
      expect(await master.text()).toMatch(/^#EXTM3U/);
      expect((await fetch(`${node.url}/media/${video.thumbnail_path}`)).status).toBe(200);
    }
    // Neither node keeps media on its own disk.
    for (const node of [nodeA, nodeB]) expect(fs.existsSync(node.config.mediaDir)).toBe(false);
  });

  it('should continue on node B a tus upload started on node A, and complete it there', { timeout: 120_000 }, async () => {
    const contentId = await createContent(owner);
    const half = Math.floor(clip.length / 2);
    const created = await createUpload(
      nodeA.url,
      owner.token,
      clip.length,
      { content_id: contentId, filename: 'tus.mp4', filetype: 'video/mp4' },
      clip.subarray(0, half),
    );
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('upload-offset')).toBe(String(half));
    // Node B sees the bytes node A took.
    const head = await headUpload(nodeB.url, owner.token, created.location);
    expect(head.headers.get('upload-offset')).toBe(String(half));
    const rest = await patchUpload(nodeB.url, owner.token, created.location, half, clip.subarray(half));
    expect(rest.status, rest.text).toBe(204);
    expect(rest.headers.get('upload-offset')).toBe(String(clip.length));
    const original = await fetch(`${nodeA.url}/media/content/${contentId}/original.mp4`);
    expect(Buffer.from(await original.arrayBuffer()).equals(clip)).toBe(true);
    // The upload's own objects are gone once its file belongs to the item.
    const id = created.location.split('/').pop()!;
    expect((await bucket.keys()).filter((k) => k.startsWith(id))).toEqual([]);
    expect(await bucket.openMultipartUploads()).toBe(0);
  });
});
