// Deleted content (CONTRACT §19) over the real server: a processed item's playlist, segment,
// original, thumbnail and images answer 404 as soon as the delete has answered (on a second node
// too, in server mode), its files are gone from MEDIA_DIR, and it can no longer be commented on,
// reacted to, boosted or published. A delete whose node died before it withdrew the media is
// finished by the media-removal job; a video job running at the delete re-creates nothing.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { storedMedia } from '../helpers/stored-media.js';
import { useTestServer } from '../helpers/fixture.js';
import { startNode, type TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type ApiResponse, type TestUser } from '../helpers/api.js';
import type { RunningService } from '../../service.js';
import { runJobNow } from '../../jobs/scheduler.js';
import { mediaRemovalJob } from '../../jobs/media-removal.js';
import { UPLOAD, contentVideo, createContent, form, latestJob, makeImage, makeVideo, onServer, scratchDir, waitForJobEnd } from '../media/media-helpers.js';
import { topUp } from '../campaigns/fixtures.js';
import { announceContentChanged } from '../helpers/behind-the-service.js';

const serverMode = Boolean(process.env.TEST_DATABASE_URL);

// A short lease: a worker whose job is withdrawn notices it within a second.
const booted = useTestServer({ VIDEO_WORKERS: '1', JOB_LEASE_SECONDS: '3' });
let server: TestServer;
let owner: TestUser;
let other: TestUser;
const scratch = scratchDir();

beforeAll(async () => {
  server = booted.current;
  [owner, other] = await Promise.all([registerAndLogin(server), registerAndLogin(server)]);
});
afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** The error envelope with exactly this status and code. */
function expectError(res: ApiResponse, status: number, code: string) {
  expect(expectErrorEnvelope(res, status).error_code).toBe(code);
}

const contentDir = (id: string) => path.join(server.service.config.mediaDir, 'content', id);
const leftovers = (id: string) => fs.readdirSync(path.join(server.service.config.mediaDir, 'content')).filter((n) => n.includes(id) && n !== id);
const mediaRemovedAt = async (id: string) =>
  (await server.service.app.database.rows<{ media_removed_at: Date | null }>(sql`select media_removed_at from contents where id = ${id}`))[0].media_removed_at;

/**
 * Nothing of the item is left, and its marker stops late writers: on the disk its content dir is
 * replaced by the empty tombstone file; in the bucket no object is under it and the empty
 * `.withdrawn/<id>` marker exists (docs/media.md).
 */
async function expectFilesGone(id: string) {
  const stored = storedMedia(server.service);
  expect(await stored.list(`content/${id}`)).toEqual([]);
  if (stored.kind === 's3') {
    expect((await stored.read(`.withdrawn/${id}`)).length).toBe(0);
    return;
  }
  const stat = fs.lstatSync(contentDir(id));
  expect(stat.isFile()).toBe(true);
  expect(stat.size).toBe(0);
  expect(leftovers(id)).toEqual([]);
}

async function expectGone(baseUrl: string, urls: string[]) {
  for (const url of urls) {
    const res = await new ApiClient(baseUrl).get(new URL(url).pathname);
    expectError(res, 404, 'media.error.not_found');
  }
}

async function expectServed(baseUrl: string, urls: string[]) {
  for (const url of urls) expect((await fetch(baseUrl + new URL(url).pathname)).status, url).toBe(200);
}

async function uploadImage(contentId: string): Promise<string> {
  const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}&topic-key=video_images_url`, {
    rawBody: form([{ name: 'files', value: await makeImage('jpeg'), filename: 'kitchen.jpg' }]),
  });
  expect(res.status).toBe(201);
  return res.body[0].url;
}

describe('DELETE /api/v1/content/:id withdraws the media', () => {
  let contentId: string;
  let urls: string[];
  let nodeB: RunningService | null = null;

  beforeAll(async () => {
    const clip = await makeVideo(path.join(scratch, 'tour.mp4'), { seconds: 2, size: '320x240' });
    contentId = await createContent(owner);
    const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, {
      rawBody: form([{ name: 'files', value: clip, filename: 'tour.mp4', type: 'video/mp4' }]),
    });
    expect(res.status).toBe(200);
    expect((await waitForJobEnd(server.service, contentId)).status).toBe('completed');
    const image = await uploadImage(contentId);
    const detail = await owner.api.get(`/api/v1/content/${contentId}`);
    expect(detail.status).toBe(200);
    const { video } = detail.body.data;
    const master = onServer(server.url, video.url);
    const variant = new URL(
      (await (await fetch(master)).text())
        .split('\n')
        .find((l) => l.trim().endsWith('.m3u8'))!
        .trim(),
      master,
    ).toString();
    const segment = new URL(
      (await (await fetch(variant)).text())
        .split('\n')
        .find((l) => l.trim().endsWith('.ts'))!
        .trim(),
      variant,
    ).toString();
    const { video: stored } = await contentVideo(server.service, contentId);
    const original = `${server.url}/media/${stored.original_path}`;
    urls = [master, variant, segment, original, onServer(server.url, video.thumbnail_url), onServer(server.url, image)];
    if (serverMode) nodeB = await startNode(server.env);
  }, 120_000);
  afterAll(async () => {
    await nodeB?.close();
  });

  it('should serve every file before the delete, 404 right after it, and remove the files', { timeout: 60_000 }, async () => {
    await expectServed(server.url, urls);
    if (serverMode) {
      expect(nodeB?.url).toBeTruthy();
      expect(nodeB?.url).not.toBe(server.url);
    }
    if (nodeB) await expectServed(nodeB.url, urls);

    const res = await owner.api.delete(`/api/v1/content/${contentId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ message: 'Content deleted' });

    await expectGone(server.url, urls);
    // The second node shares MEDIA_DIR and answers 404 at once too, with no message to wait for.
    if (nodeB) await expectGone(nodeB.url, urls);
    await expectFilesGone(contentId);
    expect(await mediaRemovedAt(contentId)).not.toBeNull();
    // The tombstone itself is never served, and HEAD agrees.
    expectError(await new ApiClient(server.url).get(`/media/content/${contentId}`), 404, 'media.error.not_found');
    expect((await fetch(urls[0], { method: 'HEAD' })).status).toBe(404);
  });

  it('should fail with 404 for new uploads to the deleted item, and nothing re-creates its files', async () => {
    const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}&topic-key=video_images_url`, {
      rawBody: form([{ name: 'files', value: await makeImage('png'), filename: 'late.png' }]),
    });
    expectError(res, 404, 'content.error.not_found');
    await expectFilesGone(contentId);
  });
});

describe('a deleted item can no longer be used', () => {
  let contentId: string;
  let commentId: string;

  beforeAll(async () => {
    contentId = await createContent(owner);
    // Published as the video worker would record it (the pipeline is covered above).
    await storedMedia(server.service).write(`content/${contentId}/original.mp4`, Buffer.alloc(1024, 1));
    await server.service.app.database.rows(sql`
      update contents set status = 'completed',
        video = video || ${JSON.stringify({ status: 'completed', original_path: `content/${contentId}/original.mp4`, size: 1024 })}::jsonb
      where id = ${contentId}`);
    await announceContentChanged(server, contentId);
    const c = await other.api.post('/sns/api/v1/comments', { contentId, msg: 'Before the delete' });
    expect(c.status).toBe(201);
    commentId = c.body.data._id;
    expect((await other.api.post(`/api/v1/content/${contentId}/reactions`)).status).toBe(200);
    await topUp(owner, 2_000_000);
    expect((await owner.api.delete(`/api/v1/content/${contentId}`)).status).toBe(200);
  });

  it('should fail with 404 for detail and a second delete', async () => {
    expectError(await owner.api.get(`/api/v1/content/${contentId}`), 404, 'content.error.not_found');
    expectError(await new ApiClient(server.url).get(`/api/v1/content/${contentId}`), 404, 'content.error.not_found');
    expectError(await owner.api.delete(`/api/v1/content/${contentId}`), 404, 'content.error.not_found');
  });

  it('should fail with 404 for comments, replies, comment listings and comment reactions', async () => {
    for (const user of [owner, other]) {
      expectError(await user.api.post('/sns/api/v1/comments', { contentId, msg: 'After the delete' }), 404, 'comments.error.content_not_found');
      expectError(await user.api.post('/sns/api/v1/comments', { contentId, msg: 'A reply', parentId: commentId }), 404, 'comments.error.content_not_found');
      expectError(await user.api.get(`/sns/api/v1/comments/${contentId}`), 404, 'comments.error.content_not_found');
      expectError(await user.api.get(`/sns/api/v1/comments/${commentId}/replies`), 404, 'comments.error.comment_not_found');
      expectError(await user.api.post(`/sns/api/v1/comments/${commentId}/reactions`, { emoji: '👍' }), 404, 'comments.error.comment_not_found');
      expectError(await user.api.delete(`/sns/api/v1/comments/${commentId}/reactions`), 404, 'comments.error.comment_not_found');
    }
    expectError(await new ApiClient(server.url).get(`/sns/api/v1/comments/${contentId}`), 404, 'comments.error.content_not_found');
    const rows = await server.service.app.database.rows<{ n: number }>(sql`select count(*)::int as n from comments where content_id = ${contentId}`);
    expect(rows[0].n).toBe(1);
  });

  it('should fail with 404 for reactions, changing nothing', async () => {
    for (const user of [owner, other]) {
      expectError(await user.api.post(`/api/v1/content/${contentId}/reactions`), 404, 'content.error.not_found');
      expectError(await user.api.delete(`/api/v1/content/${contentId}/reactions`), 404, 'content.error.not_found');
    }
    const rows = await server.service.app.database.rows<{ reaction_count: number }>(sql`select reaction_count from contents where id = ${contentId}`);
    expect(rows[0].reaction_count).toBe(1);
  });

  it('should fail with 404 for boosting, charging nothing', async () => {
    const res = await owner.api.post(`/api/v1/posts/${contentId}/boost`, { boostType: 'basic', duration: 1 });
    expectError(res, 404, 'campaign.error.video_not_found');
    const rows = await server.service.app.database.rows<{ n: number }>(sql`select count(*)::int as n from campaigns where video_id = ${contentId}`);
    expect(rows[0].n).toBe(0);
  });

  it('should fail with 404 for publishing to TikTok or YouTube', async () => {
    const headers = { 'x-user-id': owner.userId };
    expectError(await owner.api.post('/content/api/v1/tiktok/upload', { id: contentId, title: 'Tour' }, { headers }), 404, 'content.error.not_found');
    expectError(await owner.api.post('/content/api/v1/youtube/upload', { id: contentId, title: 'Tour' }, { headers }), 404, 'content.error.not_found');
  });
});

describe('recovery and racing work', () => {
  it('should finish, in the media-removal job, a delete whose node died before withdrawing the media', { timeout: 30_000 }, async () => {
    const contentId = await createContent(owner);
    const image = await uploadImage(contentId);
    // The delete committed, then the node died: the row is deleted, the files are still there.
    await server.service.app.database.rows(sql`update contents set deleted_at = now() where id = ${contentId}`);
    await expectServed(server.url, [image]);
    expect(await mediaRemovedAt(contentId)).toBeNull();

    // The scheduler may be running the job itself at that moment: run until the files are gone.
    for (let i = 0; i < 100 && (await mediaRemovedAt(contentId)) === null; i++) {
      const outcome = await runJobNow(server.service, mediaRemovalJob);
      if (outcome !== 'ran') await new Promise((r) => setTimeout(r, 100));
    }
    expect(await mediaRemovedAt(contentId)).not.toBeNull();
    await expectGone(server.url, [image]);
    await expectFilesGone(contentId);
  });

  it('should finish, in the media-removal job, a removal by moderation whose withdrawal did not end, and the job ends', { timeout: 30_000 }, async () => {
    const contentId = await createContent(owner);
    const image = await uploadImage(contentId);
    // The removal committed, then the node died before withdrawing the media.
    await server.service.app.database.rows(sql`update contents set moderation_status = 'removed' where id = ${contentId}`);
    expect(await mediaRemovedAt(contentId)).toBeNull();

    // Before the fix the sweep named this item again after each withdrawal and never returned.
    for (let i = 0; i < 100 && (await mediaRemovedAt(contentId)) === null; i++) {
      const outcome = await runJobNow(server.service, mediaRemovalJob);
      if (outcome !== 'ran') await new Promise((r) => setTimeout(r, 100));
    }
    expect(await mediaRemovedAt(contentId)).not.toBeNull();
    await expectGone(server.url, [image]);
    await expectFilesGone(contentId);
    expect(await runJobNow(server.service, mediaRemovalJob)).not.toBe('failed');
  });

  it('should stop a video job running at the delete, which re-creates nothing', { timeout: 120_000 }, async () => {
    const clip = await makeVideo(path.join(scratch, 'long.mp4'), { seconds: 20, size: '640x360' });
    const contentId = await createContent(owner);
    const transcoding = new Promise<void>((resolve) => {
      const off = server.service.app.events.subscribe('video.progress', (p) => {
        if (p.contentId === contentId && p.stage === 'transcoding') {
          off();
          resolve();
        }
      });
    });
    const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: clip, filename: 'long.mp4' }]) });
    expect(res.status).toBe(200);
    await transcoding;
    expect((await latestJob(server.service, contentId))?.status).toBe('running');

    expect((await owner.api.delete(`/api/v1/content/${contentId}`)).status).toBe(200);
    expect(await latestJob(server.service, contentId)).toMatchObject({ status: 'failed', last_error: 'content deleted' });
    await expectFilesGone(contentId);

    // The worker notices at its next heartbeat (a second with a 3 s lease) and stops; a worker
    // that got as far as moving its results finds the tombstone in the way. Either way, once the
    // worker has let go, nothing of the item is back.
    const progressed: string[] = [];
    const off = server.service.app.events.subscribe('video.progress', (p) => {
      if (p.contentId === contentId) progressed.push(p.stage);
    });
    await new Promise((r) => setTimeout(r, 4000));
    off();
    expect(progressed.filter((s) => s === 'finalizing')).toEqual([]);
    await expectFilesGone(contentId);
    const { status } = await contentVideo(server.service, contentId);
    expect(status).toBe('processing');
    // The worker is free again: the next job of another item completes.
    const next = await createContent(owner);
    const small = await makeVideo(path.join(scratch, 'small.mp4'), { seconds: 1, size: '320x240' });
    expect((await owner.api.request('POST', `${UPLOAD}?id=${next}`, { rawBody: form([{ name: 'files', value: small, filename: 'small.mp4' }]) })).status).toBe(
      200,
    );
    expect((await waitForJobEnd(server.service, next)).status).toBe('completed');
  });
});
