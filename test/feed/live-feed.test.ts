// The /feed namespace (CONTRACT §15) over the real server with real socket.io clients, websocket
// and polling: feed:new to followers (not the uploader, not others), content:watch with coalesced
// content:stats, area:watch with listing:new, and every refusal.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll, emitAck, refusal, type Transport } from '../realtime/socket-client.js';
import { CONTENT, createContent } from '../content/fixtures.js';
import { arrived, collect, follow, listing, pause, publishLive, unfollow } from './fixtures.js';
import { connectFeed } from './feed-socket.js';
import { UPLOAD, form, makeVideo, scratchDir } from '../media/media-helpers.js';
import { RecoveringClient, until } from '../realtime/recovering-client.js';

const booted = useTestServer();
let server: TestServer;
let uploader: TestUser;
let follower: TestUser;
let stranger: TestUser;
let watcher: TestUser;

/** How long "nothing arrives" is watched for: well past the one-second coalescing window. */
const QUIET_MS = 1_500;

beforeAll(async () => {
  server = booted.current;
  [uploader, follower, stranger, watcher] = await Promise.all(Array.from({ length: 4 }, () => registerAndLogin(server)));
  await follow(follower, uploader);
});
afterEach(() => closeAll());

const comment = (user: TestUser, contentId: string, msg: string) => user.api.post('/sns/api/v1/comments', { contentId, msg });

describe.each(['websocket', 'polling'] as Transport[])('/feed over %s', (transport) => {
  it('should refuse a connection without a valid token', async () => {
    expect((await refusal(server.url, '/feed', null, transport)).message).toBe('unauthorized');
    expect((await refusal(server.url, '/feed', 'not-a-token', transport)).message).toBe('unauthorized');
  });

  describe('feed:new', () => {
    it('should reach a follower in their language, and neither the uploader nor a non-follower', async () => {
      const followerSocket = await connectFeed(server.url, follower.token, transport, 'vi');
      const uploaderSocket = await connectFeed(server.url, uploader.token, transport);
      const strangerSocket = await connectFeed(server.url, stranger.token, transport);
      const toFollower = collect(followerSocket, 'feed:new');
      const toUploader = collect(uploaderSocket, 'feed:new');
      const toStranger = collect(strangerSocket, 'feed:new');

      const id = await publishLive(server, uploader);
      const item = await arrived(toFollower, (i) => i.id === id);
      // The item of GET /feeds in the same language.
      const page = await follower.api.get(`${CONTENT}/feeds?per_page=50`, { headers: { 'x-language': 'vi' } });
      expect(item).toEqual(page.body.data.items.find((i: { id: string }) => i.id === id));
      expect(item.content_info[0].lang).toBe('vi');
      expect(item).toMatchObject({ reaction_count: 0, comment_count: 0 });

      await pause(QUIET_MS);
      expect(toUploader.filter((i) => i.id === id)).toEqual([]);
      expect(toStranger.filter((i) => i.id === id)).toEqual([]);
      expect(toFollower.filter((i) => i.id === id)).toHaveLength(1);
    });

    it('should follow a follow and an unfollow made while connected', async () => {
      const fan = await registerAndLogin(server);
      const socket = await connectFeed(server.url, fan.token, transport);
      const seen = collect(socket, 'feed:new');
      await follow(fan, uploader);
      const first = await publishLive(server, uploader);
      await arrived(seen, (i) => i.id === first);

      await unfollow(fan, uploader);
      const second = await publishLive(server, uploader);
      await pause(QUIET_MS);
      expect(seen.map((i) => i.id)).toEqual([first]);
      expect(second).toBeTruthy();
    });
  });

  describe('content:watch', () => {
    it('should refuse bad payloads and more than 50 ids', async () => {
      const socket = await connectFeed(server.url, watcher.token, transport);
      const tooMany = Array.from({ length: 51 }, () => randomUUID());
      for (const payload of [{ contentIds: tooMany }, { contentIds: 'x' }, { contentIds: ['not-a-uuid'] }, {}, null, 'text', { contentIds: [], extra: 1 }]) {
        const ack = await emitAck(socket, 'content:watch', payload);
        expect(ack).toMatchObject({ ok: false, error_code: 'validation.error.invalid_payload' });
      }
      expect(await emitAck(socket, 'content:watch', { contentIds: Array.from({ length: 50 }, () => randomUUID()) })).toEqual({ ok: true });
    });

    it('should send content:stats after a reaction and after a comment', async () => {
      const id = await publishLive(server, uploader);
      const socket = await connectFeed(server.url, watcher.token, transport);
      const stats = collect(socket, 'content:stats');
      expect(await emitAck(socket, 'content:watch', { contentIds: [id] })).toEqual({ ok: true });

      expect((await stranger.api.post(`/api/v1/content/${id}/reactions`)).status).toBe(200);
      await arrived(stats, (s) => s.contentId === id && s.reaction_count === 1 && s.comment_count === 0);
      expect((await comment(stranger, id, 'Nice view')).status).toBe(201);
      const last = await arrived(stats, (s) => s.contentId === id && s.comment_count === 1, 5_000);
      expect(last).toEqual({ contentId: id, reaction_count: 1, comment_count: 1 });
    });

    it('should coalesce a burst of 10 comments to at most one event per second, ending on the final counts', async () => {
      const id = await publishLive(server, uploader);
      const socket = await connectFeed(server.url, watcher.token, transport);
      const stats: { payload: any }[] = [];
      socket.on('content:stats', (payload: any) => stats.push({ payload }));
      expect(await emitAck(socket, 'content:watch', { contentIds: [id] })).toEqual({ ok: true });

      const started = Date.now();
      const made = await Promise.all(Array.from({ length: 10 }, (_, i) => comment(stranger, id, `burst ${i}`)));
      const burstMs = Date.now() - started;
      expect(made.map((r) => r.status)).toEqual(Array(10).fill(201));
      await arrived(stats, (s) => s.payload.comment_count === 10, 5_000);
      await pause(QUIET_MS);

      expect(stats.at(-1)!.payload).toEqual({ contentId: id, reaction_count: 0, comment_count: 10 });
      // One leading event, then at most one per further second of the burst, plus the trailing one.
      // (Arrival times are not compared: client and server share this process, so a busy server
      // delays delivery; test/feed/throttle.test.ts checks the spacing on a fake clock.)
      expect(stats.length).toBeGreaterThanOrEqual(1);
      expect(stats.length).toBeLessThanOrEqual(2 + Math.floor(burstMs / 1000));
    });

    it('should send nothing for items not watched, or no longer watched', async () => {
      const [first, second] = [await publishLive(server, uploader), await publishLive(server, uploader)];
      const socket = await connectFeed(server.url, watcher.token, transport);
      const stats = collect(socket, 'content:stats');
      expect(await emitAck(socket, 'content:watch', { contentIds: [first] })).toEqual({ ok: true });
      expect(await emitAck(socket, 'content:watch', { contentIds: [second] })).toEqual({ ok: true });
      await comment(stranger, first, 'on the first');
      await comment(stranger, second, 'on the second');
      await arrived(stats, (s) => s.contentId === second);
      await pause(QUIET_MS);
      expect(stats.filter((s) => s.contentId === first)).toEqual([]);
    });

    it("should not let a caller watch another user's unpublished item", async () => {
      const draft = await createContent(uploader);
      const socket = await connectFeed(server.url, watcher.token, transport);
      const stats = collect(socket, 'content:stats');
      expect(await emitAck(socket, 'content:watch', { contentIds: [draft] })).toEqual({ ok: true });
      expect((await comment(uploader, draft, 'note to self')).status).toBe(201);
      // The uploader may watch their own draft.
      const own = await connectFeed(server.url, uploader.token, transport);
      const ownStats = collect(own, 'content:stats');
      expect(await emitAck(own, 'content:watch', { contentIds: [draft] })).toEqual({ ok: true });
      expect((await comment(uploader, draft, 'second note')).status).toBe(201);
      await arrived(ownStats, (s) => s.contentId === draft && s.comment_count === 2, 5_000);
      await pause(QUIET_MS);
      expect(stats).toEqual([]);
    });
  });

  describe('area:watch', () => {
    it('should refuse bad payloads', async () => {
      const socket = await connectFeed(server.url, watcher.token, transport);
      for (const payload of [
        {},
        { latitude: 10 },
        { latitude: 100, longitude: 0 },
        { latitude: '10', longitude: 106 },
        { latitude: 10, longitude: 106, zoom_level: 30 },
        { latitude: 10, longitude: 106, x: 1 },
        null,
      ]) {
        const ack = await emitAck(socket, 'area:watch', payload);
        expect(ack).toMatchObject({ ok: false, error_code: 'validation.error.invalid_payload' });
      }
    });

    it('should send listing:new for an item inside the viewport and not for one outside', async () => {
      const socket = await connectFeed(server.url, watcher.token, transport, 'en');
      const listings = collect(socket, 'listing:new');
      // District 7 of Ho Chi Minh City at street zoom.
      expect(await emitAck(socket, 'area:watch', { latitude: 10.73, longitude: 106.72, zoom_level: 14 })).toEqual({ ok: true });
      const hanoi = await publishLive(server, uploader, listing({ lat: 21.0285, long: 105.8542 }));
      const nextDistrict = await publishLive(server, uploader, listing({ lat: 10.73, long: 106.8 }));
      const inside = await publishLive(server, uploader, listing({ lat: 10.7296, long: 106.7218 }));
      const item = await arrived(listings, (i) => i.id === inside);
      expect(item.content_info[0].lang).toBe('en');
      expect(item.comment_count).toBe(0);
      await pause(QUIET_MS);
      expect(listings.map((i) => i.id)).toEqual([inside]);
      expect([hanoi, nextDistrict]).not.toContain(inside);
    });

    it('should replace the viewport on a second area:watch', async () => {
      const socket = await connectFeed(server.url, watcher.token, transport);
      const listings = collect(socket, 'listing:new');
      expect(await emitAck(socket, 'area:watch', { latitude: 10.73, longitude: 106.72, zoom_level: 14 })).toEqual({ ok: true });
      expect(await emitAck(socket, 'area:watch', { latitude: 21.03, longitude: 105.85, zoom_level: 12 })).toEqual({ ok: true });
      const saigon = await publishLive(server, uploader, listing({ lat: 10.7296, long: 106.7218 }));
      const hanoi = await publishLive(server, uploader, listing({ lat: 21.0285, long: 105.8542 }));
      await arrived(listings, (i) => i.id === hanoi);
      await pause(QUIET_MS);
      expect(listings.map((i) => i.id)).not.toContain(saigon);
    });
  });
});

describe('feed:new from a real upload', () => {
  const scratch = scratchDir();
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('should reach a follower once the uploaded video is processed', { timeout: 120_000 }, async () => {
    const socket = await connectFeed(server.url, follower.token, 'websocket');
    const feed = collect(socket, 'feed:new');
    const clip = await makeVideo(path.join(scratch, 'tour.mp4'), { seconds: 2, size: '320x240' });
    const contentId = await createContent(uploader);
    const res = await uploader.api.request('POST', `${UPLOAD}?id=${contentId}`, {
      rawBody: form([{ name: 'files', value: clip, filename: 'tour.mp4', type: 'video/mp4' }]),
    });
    expect(res.status).toBe(200);
    const item = await arrived(feed, (i) => i.id === contentId, 110_000);
    expect(item.video.url).toMatch(/\.m3u8$/);
  });
});

describe('a /feed socket restored after a dropped connection', () => {
  it('should keep its followed uploaders, watched items and viewport, and get the feed:new it missed', async () => {
    const client = new RecoveringClient([server.url], ['/feed'], follower.token, 'websocket');
    try {
      await client.connect();
      const socket = client.socket('/feed');
      const watchedItem = await publishLive(server, uploader);
      expect(await emitAck(socket, 'content:watch', { contentIds: [watchedItem] })).toEqual({ ok: true });
      expect(await emitAck(socket, 'area:watch', { latitude: 10.73, longitude: 106.72, zoom_level: 14 })).toEqual({ ok: true });

      client.cut(1_000);
      await until(() => !socket.connected, 10_000, 'the drop');
      const missed = await publishLive(server, uploader, listing({ lat: 21.0285, long: 105.8542 }));
      await client.reconnected();
      expect(socket.recovered).toBe(true);
      await until(() => client.keys('/feed', 'feed:new', (i) => i.id).includes(missed), 10_000, 'the missed feed:new');

      const inside = await publishLive(server, uploader, listing({ lat: 10.7296, long: 106.7218 }));
      await until(() => client.keys('/feed', 'listing:new', (i) => i.id).includes(inside), 10_000, 'listing:new after the restore');
      expect((await comment(stranger, watchedItem, 'after the restore')).status).toBe(201);
      await until(
        () => client.keys('/feed', 'content:stats', (s) => `${s.contentId}:${s.comment_count}`).includes(`${watchedItem}:1`),
        10_000,
        'content:stats after the restore',
      );
      expect(client.keys('/feed', 'feed:new', (i) => i.id).filter((id) => id === missed)).toHaveLength(1);
    } finally {
      client.close();
    }
  });
});
