// CONTRACT §25 and §14 with the default adapter (REALTIME_ADAPTER=rooms), server mode, two nodes:
// - a node with no member of a room is not subscribed to the room's channel and receives none of
//   its traffic (observed through Redis's PUBSUB SHARDNUMSUB and the adapter's counters);
// - a 10 s Redis outage that keeps its data (a proxy of the test's own closed under both nodes)
//   loses no acknowledged message at either node's sockets: each arrives once, in order, and no
//   socket is disconnected;
// - a Redis killed and restarted empty in the middle of a stream of messages (a redis-server of
//   the test's own) leaves no socket silently short: each gets every message once, in order, or is
//   told (`io server disconnect`), and cross-node delivery goes on.
// Recovery onto the other node with this adapter: recovery-nodes.test.ts; SIGTERM: handover.test.ts.
import { type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import type { Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { asTestServer } from '../helpers/server.js';
import { startTwoNodes, useTwoNodesInProcess, type TwoNodes } from '../helpers/nodes.js';
import { ApiClient, registerAndLogin } from '../helpers/api.js';
import { freePort } from '../helpers/child-process.js';
import { hasRedisServer, startRedis, stopRedis } from '../helpers/redis-server.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import type { RunningService } from '../../service.js';
import { closeAll, connect, emitAck } from './socket-client.js';
import { until } from './recovering-client.js';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
const SNS = '/sns/api/v1';

describe.skipIf(!enabled)('node-local delivery (rooms adapter)', () => {
  const nodes = useTwoNodesInProcess();
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(process.env.TEST_REDIS_URL!);
  });
  afterAll(() => redis?.disconnect());
  afterEach(() => closeAll());

  const subscribers = async (channel: string): Promise<number> => {
    const reply = (await redis.call('PUBSUB', 'SHARDNUMSUB', channel)) as [string, number];
    return Number(reply[1]);
  };

  it('should keep a room’s traffic off a node with no member in it, and bring it there once one joins', async () => {
    const a = nodes.a!;
    const b = nodes.b!;
    const alice = await registerAndLogin(nodes.server!);
    const bob = await registerAndLogin(nodes.server!);
    const room = (await alice.api.post(`${SNS}/chat/rooms`, { memberIds: [bob.userId], name: 'only on A' })).body.data;
    const channel = `${a.config.REDIS_PREFIX}socket.io#/chat#room:${room.roomId}#`;
    const onA = await connect(a.url, '/chat', bob.token, 'websocket');
    const got: string[] = [];
    onA.on('message:new', (m: { _id: string }) => got.push(m._id));
    expect(await subscribers(channel)).toBe(1);

    const before = b.realtime.adapterStats()!;
    const aBefore = a.realtime.adapterStats()!.received;
    const sent: string[] = [];
    for (let i = 0; i < 20; i++)
      sent.push((await new ApiClient(a.url, alice.token).post(`${SNS}/chat/messages`, { roomId: room.roomId, msg: `m${i}` })).body.data._id);
    await until(() => got.length >= sent.length, 20_000, 'the messages on A');
    expect(got).toEqual(sent);
    // A got its own messages back on the room's channel (that is how it orders them); B nothing at all.
    expect(a.realtime.adapterStats()!.received - aBefore).toBeGreaterThanOrEqual(sent.length);
    expect(b.realtime.adapterStats()!.received).toBe(before.received);

    // Bob opens a socket on B too: B subscribes to the room and gets its traffic.
    const onB = await connect(b.url, '/chat', bob.token, 'websocket');
    expect(await emitAck(onB, 'room:join', { roomId: room.roomId })).toEqual({ ok: true });
    expect(await subscribers(channel)).toBe(2);
    const gotOnB: string[] = [];
    onB.on('message:new', (m: { _id: string }) => gotOnB.push(m._id));
    const id = (await new ApiClient(a.url, alice.token).post(`${SNS}/chat/messages`, { roomId: room.roomId, msg: 'now B too' })).body.data._id;
    await until(() => gotOnB.includes(id), 20_000, 'the message on B');
    expect(b.realtime.adapterStats()!.received).toBeGreaterThan(before.received);

    // Once Bob's socket on B is gone, B lets go of the room's channel.
    onB.close();
    await until(() => b.realtime.adapterStats()!.subscribedRooms < before.subscribedRooms + 1, 20_000, 'B to unsubscribe');
  }, 90_000);
});

/** A member's socket on a node: the `message:new` ids it got, in order, and why it was disconnected. */
function member(socket: Socket): { got: string[]; disconnects: string[] } {
  const seen = { got: [] as string[], disconnects: [] as string[] };
  socket.on('message:new', (m: { _id: string }) => seen.got.push(m._id));
  socket.on('disconnect', (reason: string) => seen.disconnects.push(reason));
  return seen;
}

/** Posts a message through `api` every 50 ms until `stop()` says so; the ids acknowledged, in order. */
function stream(api: ApiClient, roomId: string): { acknowledged: string[]; stop: () => Promise<void> } {
  const acknowledged: string[] = [];
  let running = true;
  const done = (async () => {
    for (let i = 0; running; i++) {
      const res = await api.post(`${SNS}/chat/messages`, { roomId, msg: `m${i}` });
      expect(res.status).toBe(201);
      acknowledged.push(res.body.data._id);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    acknowledged,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/**
 * CONTRACT §14 and §18: what `seen` got of `acknowledged` is either all of it, once each, in order,
 * or, when it was told (`io server disconnect`: its client re-syncs), an in-order part without
 * doubles. Never silently short.
 */
async function everyMessageOrTold(seen: { got: string[]; disconnects: string[] }, acknowledged: string[], who: string): Promise<void> {
  const told = () => seen.disconnects.includes('io server disconnect');
  await until(() => told() || seen.got.length >= acknowledged.length, 60_000, `${who}: every message, or the signal`);
  if (!told()) {
    expect(seen.got, who).toEqual(acknowledged);
    expect(seen.disconnects, who).toEqual([]);
    return;
  }
  expect(new Set(seen.got).size, `${who}: no message twice`).toBe(seen.got.length);
  const positions = seen.got.map((id) => acknowledged.indexOf(id));
  expect(
    positions.every((p, i) => p >= 0 && (i === 0 || p > positions[i - 1])),
    `${who}: in order, only acknowledged ones`,
  ).toBe(true);
}

describe.skipIf(!enabled || !hasRedisServer)('Redis restarted empty in the middle of a stream (rooms adapter, two nodes)', () => {
  let redisServer: ChildProcess;
  let redisDown = false;
  let port: number;
  let proxy: TcpProxy;
  // `far` reaches Redis through the proxy (its connections can come back a moment after the
  // sender's, as on any network); `sender` directly.
  let far: RunningService;
  let sender: RunningService;
  let nodes: TwoNodes | undefined;

  beforeAll(async () => {
    port = await freePort();
    redisServer = await startRedis(port);
    const url = `redis://127.0.0.1:${port}/0`;
    proxy = await TcpProxy.before(url, 6379);
    nodes = await startTwoNodes({ REDIS_URL: url, REDIS_PREFIX: 'restart:' }, (env) => ({ ...env, REDIS_URL: proxy.through(url) }));
    ({ nodeA: far, nodeB: sender } = nodes);
  });
  afterEach(() => closeAll());
  afterAll(async () => {
    proxy?.resume();
    if (redisDown) redisServer = await startRedis(port);
    await nodes?.close();
    await proxy?.close();
    if (redisServer) await stopRedis(redisServer);
  });

  it('should give the other node’s socket every message once and in order, or tell it, never leave it silently short', async () => {
    const alice = await registerAndLogin(asTestServer(far));
    const bob = await registerAndLogin(asTestServer(far));
    const aliceOnSender = new ApiClient(sender.url, alice.token);
    const room = (await aliceOnSender.post(`${SNS}/chat/rooms`, { memberIds: [bob.userId], name: 'restart' })).body.data;
    // Alice's socket first: the sender names the dataset's epoch. Before the fix it named the next
    // dataset's the same, and the far node read the new entries as if they came after the old ones.
    const aliceSeen = member(await connect(sender.url, '/chat', alice.token, 'websocket'));
    const bobSeen = member(await connect(far.url, '/chat', bob.token, 'websocket'));

    const messages = stream(aliceOnSender, room.roomId);
    try {
      await until(() => bobSeen.got.length >= 40, 30_000, 'the stream to cross before the outage');
      await stopRedis(redisServer);
      redisDown = true;
      await until(() => sender.realtime.adapterStats()!.queued > 0 && !far.realtime.adapterStats()!.connected, 20_000, 'both nodes to see Redis gone');
      const cutAt = Date.now();
      await until(() => Date.now() - cutAt >= 10_000, 20_000, 'ten seconds of outage');
      // Back empty (nothing saved); the far node's connections return once the sender has published its outbox.
      proxy.hold();
      redisServer = await startRedis(port);
      redisDown = false;
      await until(() => sender.realtime.adapterStats()!.connected && sender.realtime.adapterStats()!.queued === 0, 40_000, 'the sender to publish its outbox');
      proxy.resume();
      await until(() => far.realtime.adapterStats()!.connected, 40_000, 'the far node to reach Redis again');
      const backAt = messages.acknowledged.length;
      await until(() => messages.acknowledged.length >= backAt + 20, 30_000, 'messages after the outage');
    } finally {
      proxy.resume();
      await messages.stop();
    }
    expect(sender.realtime.adapterStats()!.dropped).toBe(0);
    await everyMessageOrTold(bobSeen, messages.acknowledged, 'Bob on the far node');
    await everyMessageOrTold(aliceSeen, messages.acknowledged, 'Alice on the sender');

    // Cross-node delivery goes on: a new socket of Bob's on the far node gets the next message, once.
    const bobAgain = member(await connect(far.url, '/chat', bob.token, 'websocket'));
    const next = (await aliceOnSender.post(`${SNS}/chat/messages`, { roomId: room.roomId, msg: 'next' })).body.data._id;
    await until(() => bobAgain.got.includes(next), 20_000, 'the next message on the far node');
    expect(bobAgain.got).toEqual([next]);
  }, 180_000);
});

describe.skipIf(!enabled)('a 10 s Redis outage that keeps its data (rooms adapter, two nodes)', () => {
  let proxy: TcpProxy;
  let proxyClosed = false;
  let a: RunningService;
  let b: RunningService;
  let nodes: TwoNodes | undefined;

  beforeAll(async () => {
    proxy = await TcpProxy.before(process.env.TEST_REDIS_URL!, 6379);
    // Both nodes reach Redis through the proxy: closing it is an outage for both, Redis keeps its data.
    nodes = await startTwoNodes({ REDIS_URL: proxy.through(process.env.TEST_REDIS_URL!) });
    ({ nodeA: a, nodeB: b } = nodes);
  });
  afterEach(() => closeAll());
  afterAll(async () => {
    if (proxyClosed) proxy = await proxy.reopen();
    await nodes?.close();
    await proxy?.close();
  });

  it('should deliver every message acknowledged during the outage to the other node’s sockets, once and in order, without disconnecting them', async () => {
    const alice = await registerAndLogin(asTestServer(a));
    const bob = await registerAndLogin(asTestServer(a));
    const aliceOnA = new ApiClient(a.url, alice.token);
    const room = (await aliceOnA.post(`${SNS}/chat/rooms`, { memberIds: [bob.userId], name: 'outage' })).body.data;
    const aliceSeen = member(await connect(a.url, '/chat', alice.token, 'websocket'));
    const bobSeen = member(await connect(b.url, '/chat', bob.token, 'websocket'));

    const messages = stream(aliceOnA, room.roomId);
    try {
      await until(() => bobSeen.got.length >= 20, 30_000, 'the stream to cross before the outage');
      await proxy.close();
      proxyClosed = true;
      const cutAt = Date.now();
      await until(() => a.realtime.adapterStats()!.queued > 0, 20_000, 'A to queue for the other node');
      await until(() => Date.now() - cutAt >= 10_000, 20_000, 'ten seconds of outage');
      proxy = await proxy.reopen();
      proxyClosed = false;
      await until(() => a.realtime.adapterStats()!.connected && a.realtime.adapterStats()!.queued === 0, 40_000, 'A to publish its outbox');
      const flushedAt = messages.acknowledged.length;
      await until(() => messages.acknowledged.length >= flushedAt + 20, 30_000, 'messages after the outage');
    } finally {
      await messages.stop();
    }
    await until(() => bobSeen.got.length >= messages.acknowledged.length, 40_000, 'every message on B');
    expect(bobSeen.got).toEqual(messages.acknowledged);
    expect(bobSeen.disconnects).toEqual([]);
    await until(() => aliceSeen.got.length >= messages.acknowledged.length, 20_000, 'every message on A');
    expect(aliceSeen.got).toEqual(messages.acknowledged);
    expect(aliceSeen.disconnects).toEqual([]);
    expect(a.realtime.adapterStats()!).toMatchObject({ queued: 0, dropped: 0 });
  }, 150_000);
});
