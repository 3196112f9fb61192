// Resumable uploads that outlive their node (CONTRACT §24): a node stopped and started again on
// the same storage between two chunks; in server mode, two nodes sharing PostgreSQL and the media
// storage, the second half sent to the other node and two PATCHes at once across them; unfinished
// uploads expiring RESUMABLE_UPLOAD_TTL seconds after creation and their bytes removed by the job.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNode, testEnvironment, type TestServer } from '../helpers/server.js';
import { useTestServer } from '../helpers/fixture.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import type { RunningService } from '../../service.js';
import { runJobNow } from '../../jobs/scheduler.js';
import { resumableExpiryJob } from '../../jobs/resumable-expiry.js';
import { contentVideo, createContent, makeImage, makeVideo, scratchDir, waitForJobEnd } from './media-helpers.js';
import { mediaInBucket, storedMedia } from '../helpers/stored-media.js';
import { createUpload, headUpload, leaseTaken, openPatch, patchUpload, resumableFiles } from './resumable-helpers.js';

const scratch = scratchDir();
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const serverOf = (node: RunningService, env: Record<string, string>): TestServer => ({
  url: node.url,
  service: node,
  dataDir: env.DATA_DIR,
  env,
  close: async () => undefined,
});
const mainVideo = (contentId: string) => ({ content_id: contentId, filename: 'tour.mp4' });

describe('a resumable upload across a restart of its node', () => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  let node: RunningService | null = null;

  beforeAll(async () => {
    ({ env, cleanup } = await testEnvironment({ VIDEO_WORKERS: '1' }));
  });
  afterAll(async () => {
    await node?.close();
    await cleanup?.();
  });

  it('should continue after the node is stopped and started again between two chunks', { timeout: 120_000 }, async () => {
    const video = await makeVideo(path.join(scratch, 'restart.mp4'), { seconds: 2 });
    node = await startNode(env);
    const owner = await registerAndLogin(serverOf(node, env));
    const contentId = await createContent(owner);
    const { location } = await createUpload(node.url, owner.token, video.length, mainVideo(contentId));
    const half = Math.floor(video.length / 2);
    expect((await patchUpload(node.url, owner.token, location, 0, video.subarray(0, half))).status).toBe(204);

    await node.close();
    node = await startNode(env);

    const head = await headUpload(node.url, owner.token, location);
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe(String(half));
    expect((await patchUpload(node.url, owner.token, location, half, video.subarray(half))).status).toBe(204);
    expect((await waitForJobEnd(node, contentId)).status).toBe('completed');
    expect((await contentVideo(node, contentId)).status).toBe('completed');
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('a resumable upload on two nodes (server mode)', () => {
  let nodeA: RunningService;
  let nodeB: RunningService;
  let cleanup: () => Promise<void>;
  let dataDirB: string;
  let owner: TestUser;
  let video: Buffer;

  beforeAll(async () => {
    const environment = await testEnvironment();
    cleanup = environment.cleanup;
    // Both nodes mount the same media storage; each has its own data directory.
    const shared = { ...environment.env, MEDIA_DIR: path.join(environment.env.DATA_DIR, 'shared-media'), VIDEO_WORKERS: '1' };
    nodeA = await startNode(shared);
    dataDirB = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-tus-b-'));
    nodeB = await startNode({ ...shared, DATA_DIR: dataDirB, VIDEO_WORKERS: '0' });
    owner = await registerAndLogin(serverOf(nodeA, shared));
    video = await makeVideo(path.join(scratch, 'nodes.mp4'), { seconds: 2 });
  });
  afterAll(async () => {
    await nodeB?.close();
    await nodeA?.close();
    if (dataDirB) fs.rmSync(dataDirB, { recursive: true, force: true });
    await cleanup?.();
  });

  it('should refuse a PATCH on one node while another node writes to the upload (409)', { timeout: 120_000 }, async () => {
    const contentId = await createContent(owner);
    const { location } = await createUpload(nodeA.url, owner.token, video.length, mainVideo(contentId));
    const onA = openPatch(nodeA.url, owner.token, location, 0, video, 3000);
    await onA.written;
    await leaseTaken(nodeA, location);
    const at = Number((await headUpload(nodeB.url, owner.token, location)).headers.get('upload-offset'));
    const onB = await patchUpload(nodeB.url, owner.token, location, at, video.subarray(at));
    expect(onB.status).toBe(409);
    expect(onB.body.error_code).toBe('upload.error.busy');
    expect((await onA.finish()).status).toBe(204);
    expect((await waitForJobEnd(nodeA, contentId)).status).toBe('completed');
  });

  it('should take the second half on the other node and complete the item', { timeout: 120_000 }, async () => {
    const contentId = await createContent(owner);
    const { location } = await createUpload(nodeA.url, owner.token, video.length, mainVideo(contentId));
    const half = Math.floor(video.length / 2);
    expect((await patchUpload(nodeA.url, owner.token, location, 0, video.subarray(0, half))).status).toBe(204);

    const head = await headUpload(nodeB.url, owner.token, location);
    expect(head.headers.get('upload-offset')).toBe(String(half));
    const last = await patchUpload(nodeB.url, owner.token, location, half, video.subarray(half));
    expect(last.status).toBe(204);
    // Node B runs no video worker: the job it queued is processed by node A.
    expect((await waitForJobEnd(nodeA, contentId)).status).toBe('completed');
    expect((await contentVideo(nodeB, contentId)).status).toBe('completed');
  });
});

describe('unfinished resumable uploads expire (RESUMABLE_UPLOAD_TTL=4)', () => {
  const booted = useTestServer({ RESUMABLE_UPLOAD_TTL: '4', VIDEO_WORKERS: '0' });

  it('should give Upload-Expires at creation, then answer 404 once expired, and the job removes the bytes', { timeout: 120_000 }, async () => {
    const node = booted.current.service;
    const owner = await registerAndLogin(booted.current);
    const contentId = await createContent(owner);
    const png = await makeImage('png', 40, 40);
    const image = { content_id: contentId, topic_key: 'video_images_url', filename: 'a.png' };
    const created = await createUpload(node.url, owner.token, png.length, image);
    expect(created.status).toBe(201);
    const expires = Date.parse(created.headers.get('upload-expires') ?? '');
    const now = Date.parse(created.headers.get('date') ?? '');
    // RFC 7231 dates have whole seconds.
    expect(expires - now).toBeGreaterThan(0);
    expect(expires - now).toBeLessThanOrEqual(5000);
    expect((await patchUpload(node.url, owner.token, created.location, 0, png.subarray(0, 50))).status).toBe(204);
    const id = created.location.split('/').pop()!;
    expect(await resumableFiles(node)).toContain(id);

    // A file whose upload row is gone (its item erased) is removed too; a live upload is not.
    const orphan = '0b7e4c1e-2f6a-4d8e-9c31-5a7f1e2d3c4b';
    await storedMedia(node).leaveResumable(orphan, 'left behind');

    for (;;) {
      const head = await headUpload(node.url, owner.token, created.location);
      if (head.status === 404) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const later = await createUpload(node.url, owner.token, png.length, image);
    expect((await patchUpload(node.url, owner.token, later.location, 0, png.subarray(0, 10))).status).toBe(204);
    const laterId = later.location.split('/').pop()!;

    expect(await runJobNow(node, resumableExpiryJob)).toBe('ran');
    expect((await resumableFiles(node)).sort()).toEqual([laterId]);
    expect(await node.app.database.rows(sql`select id from resumable_uploads where id = ${id}`)).toEqual([]);
    expect(await node.app.database.rows(sql`select id from resumable_uploads where id = ${laterId}`)).toHaveLength(1);
  });
});

/** A small tmpfs of its own: storage that fills up, and can be made read-only. */
function tinyStorage(bytes: number): { dir: string; readOnly: () => void; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-tus-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'ignore' });
  return {
    dir,
    readOnly: () => execFileSync('mount', ['-o', 'remount,ro', dir], { stdio: 'ignore' }),
    remove: () => {
      execFileSync('umount', [dir], { stdio: 'ignore' });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether this run may mount a file system (root with the right to mount). */
function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    tinyStorage(4096).remove();
    return true;
  } catch {
    return false;
  }
}

// A full or read-only disk is the local store's case only: with TEST_MEDIA_STORAGE=s3 the bytes go
// to the bucket and the tiny disk is never written (a store that refuses is in s3-storage.test.ts).
describe.skipIf(!canMount() || mediaInBucket())('resumable uploads on storage that is full, then read-only (CONTRACT §19)', () => {
  let storage: ReturnType<typeof tinyStorage>;
  beforeAll(() => {
    storage = tinyStorage(256 * 1024);
  });
  // Registered before the server's hooks, so it runs after the server is closed.
  afterAll(() => storage?.remove());
  const booted = useTestServer(() => ({ MEDIA_DIR: storage.dir, VIDEO_WORKERS: '0' }));

  it('should answer 507 media.error.storage_unavailable, keep what was written and leave the item as it was', async () => {
    const node = booted.current.service;
    const owner = await registerAndLogin(booted.current);
    const contentId = await createContent(owner);
    const before = await contentVideo(node, contentId);
    const bytes = Buffer.alloc(400 * 1024, 7);
    const { location } = await createUpload(node.url, owner.token, bytes.length, mainVideo(contentId));

    const full = await patchUpload(node.url, owner.token, location, 0, bytes);
    expect(full.status).toBe(507);
    expect(full.body).toMatchObject({ success: false, error_code: 'media.error.storage_unavailable' });
    const head = await headUpload(node.url, owner.token, location);
    expect(head.status).toBe(200);
    const kept = Number(head.headers.get('upload-offset'));
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(bytes.length);
    expect(await contentVideo(node, contentId)).toEqual(before);

    storage.readOnly();
    const refused = await createUpload(node.url, owner.token, 1000, mainVideo(contentId));
    expect(refused.status).toBe(507);
    expect(refused.body.error_code).toBe('media.error.storage_unavailable');
    expect(await contentVideo(node, contentId)).toEqual(before);
    // The refused creation left no record; the first upload's stays, with its bytes.
    const rows = await node.app.database.rows<{ id: string }>(sql`select id from resumable_uploads where content_id = ${contentId}`);
    expect(rows.map((r) => r.id)).toEqual([location.split('/').pop()]);
  });
});
