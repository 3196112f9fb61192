// The live feed across two nodes sharing PostgreSQL and Redis: an item published on node B reaches
// followers and map watchers connected to node A; counts changed through B (and through both at
// once) reach a watcher on A, still at most once a second; a follow made through B reaches a
// socket on A. Runs only when TEST_DATABASE_URL and TEST_REDIS_URL are set (the server pass).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer } from '../helpers/server.js';
import { startTwoNodes, type TwoNodes } from '../helpers/nodes.js';
import { ApiClient, registerAndLogin, type TestUser } from '../helpers/api.js';
import type { RunningService } from '../../service.js';
import { closeAll, emitAck, type Transport } from '../realtime/socket-client.js';
import { arrived, collect, follow, listing, pause, publishLive } from './fixtures.js';
import { connectFeed } from './feed-socket.js';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

describe.skipIf(!enabled)('the live feed on two nodes', () => {
  let nodeA: RunningService;
  let nodeB: RunningService;
  let serverA: TestServer;
  let nodes: TwoNodes | undefined;
  let uploader: TestUser;
  let follower: TestUser;
  let watcher: TestUser;

  beforeAll(async () => {
    nodes = await startTwoNodes();
    ({ nodeA, nodeB, serverA } = nodes);
    [uploader, follower, watcher] = await Promise.all(Array.from({ length: 3 }, () => registerAndLogin(serverA)));
    await follow(follower, uploader);
  });
  afterEach(() => closeAll());
  afterAll(async () => {
    await nodes?.close();
  });

  const commentOn = (node: RunningService, user: TestUser, contentId: string, msg: string) =>
    new ApiClient(node.url, user.token).post('/sns/api/v1/comments', { contentId, msg });

  describe.each(['websocket', 'polling'] as Transport[])('over %s', (transport) => {
    it('should deliver feed:new and listing:new for an item published on B to sockets on A, once each', async () => {
      const followerSocket = await connectFeed(nodeA.url, follower.token, transport);
      const uploaderSocket = await connectFeed(nodeA.url, uploader.token, transport);
      const mapSocket = await connectFeed(nodeA.url, watcher.token, transport);
      const feed = collect(followerSocket, 'feed:new');
      const own = collect(uploaderSocket, 'feed:new');
      const listings = collect(mapSocket, 'listing:new');
      expect(await emitAck(mapSocket, 'area:watch', { latitude: 10.73, longitude: 106.72, zoom_level: 13 })).toEqual({ ok: true });

      const id = await publishLive(serverA, uploader, listing(), nodeB);
      await arrived(feed, (i) => i.id === id);
      await arrived(listings, (i) => i.id === id);
      await pause(1_500);
      expect(feed.filter((i) => i.id === id)).toHaveLength(1);
      expect(listings.filter((i) => i.id === id)).toHaveLength(1);
      expect(own).toEqual([]);
    });

    it('should deliver content:stats for counts changed through B, coalesced across both nodes', async () => {
      const id = await publishLive(serverA, uploader, listing(), nodeB);
      const socket = await connectFeed(nodeA.url, watcher.token, transport);
      const stats: { payload: any }[] = [];
      socket.on('content:stats', (payload: any) => stats.push({ payload }));
      expect(await emitAck(socket, 'content:watch', { contentIds: [id] })).toEqual({ ok: true });

      expect((await commentOn(nodeB, follower, id, 'from B')).status).toBe(201);
      await arrived(stats, (s) => s.payload.comment_count === 1);

      await pause(1_100);
      const before = stats.length;
      const started = Date.now();
      const made = await Promise.all(Array.from({ length: 10 }, (_, i) => commentOn(i % 2 ? nodeA : nodeB, follower, id, `burst ${i}`)));
      const burstMs = Date.now() - started;
      expect(made.map((r) => r.status)).toEqual(Array(10).fill(201));
      await arrived(stats, (s) => s.payload.comment_count === 11, 5_000);
      await pause(1_500);
      const burst = stats.slice(before);
      expect(burst.at(-1)!.payload).toEqual({ contentId: id, reaction_count: 0, comment_count: 11 });
      // Changes made on both nodes, yet at most one event per second reaches the socket on A.
      expect(burst.length).toBeLessThanOrEqual(2 + Math.floor(burstMs / 1000));
    });

    it('should let a follow made through B reach a socket on A', async () => {
      const fan = await registerAndLogin(serverA);
      const socket = await connectFeed(nodeA.url, fan.token, transport);
      const feed = collect(socket, 'feed:new');
      const res = await new ApiClient(nodeB.url, fan.token).post(`/auth/api/v1/users/${uploader.userId}/follow`, undefined, {
        headers: { 'x-user-id': fan.userId },
      });
      expect(res.status).toBe(200);
      // The join travels through Redis like any broadcast: wait until A has applied it.
      const joined = () => nodeA.realtime.io.of('/feed').adapter.rooms.get(`author:${uploader.userId}`)?.has(socket.id!) ?? false;
      for (let i = 0; i < 200 && !joined(); i++) await pause(25);
      expect(joined()).toBe(true);
      const id = await publishLive(serverA, uploader, listing(), nodeB);
      await arrived(feed, (i) => i.id === id);
    });
  });
});
