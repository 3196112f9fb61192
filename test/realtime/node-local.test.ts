// CONTRACT §25 and §14 with the default adapter (REALTIME_ADAPTER=rooms), server mode, two nodes:
// - a node with no member of a room is not subscribed to the room's channel and receives none of
//   its traffic (observed through Redis's PUBSUB SHARDNUMSUB and the adapter's counters);
// - a 10 s Redis outage (a redis-server of the test's own, killed and restarted empty) loses no
//   acknowledged message at the other node's sockets: each arrives once, in order, once Redis is back.
// Recovery onto the other node with this adapter: recovery-nodes.test.ts; SIGTERM: handover.test.ts.
import { type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { asTestServer } from '../helpers/server.js';
import { startTwoNodes, useTwoNodesInProcess, type TwoNodes } from '../helpers/nodes.js';
import { ApiClient, registerAndLogin } from '../helpers/api.js';
import { freePort } from '../helpers/child-process.js';
import { hasRedisServer, startRedis, stopRedis } from '../helpers/redis-server.js';
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
    for (let i = 0; i < 20; i++) sent.push((await new ApiClient(a.url, alice.token).post(`${SNS}/chat/messages`, { roomId: room.roomId, msg: `m${i}` })).body.data._id);
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

describe.skipIf(!enabled || !hasRedisServer)('a 10 s Redis outage (rooms adapter, two nodes)', () => {
  let redisServer: ChildProcess;
  let port: number;
  let a: RunningService;
  let b: RunningService;
  let nodes: TwoNodes | undefined;

  beforeAll(async () => {
    port = await freePort();
    redisServer = await startRedis(port);
    nodes = await startTwoNodes({ REDIS_URL: `redis://127.0.0.1:${port}/0`, REDIS_PREFIX: 'outage:' });
    ({ nodeA: a, nodeB: b } = nodes);
  });
  afterEach(() => closeAll());
  afterAll(async () => {
    await nodes?.close();
    if (redisServer) await stopRedis(redisServer);
  });

  it('should deliver every message acknowledged during the outage to the other node’s sockets, once and in order, when Redis returns', async () => {
    const alice = await registerAndLogin(asTestServer(a));
    const bob = await registerAndLogin(asTestServer(a));
    const aliceOnA = new ApiClient(a.url, alice.token);
    const room = (await aliceOnA.post(`${SNS}/chat/rooms`, { memberIds: [bob.userId], name: 'outage' })).body.data;
    const bobOnB = await connect(b.url, '/chat', bob.token, 'websocket');
    const got: string[] = [];
    bobOnB.on('message:new', (m: { _id: string }) => got.push(m._id));
    let disconnects = 0;
    bobOnB.on('disconnect', () => disconnects++);

    const post = async (msg: string): Promise<string> => {
      const res = await aliceOnA.post(`${SNS}/chat/messages`, { roomId: room.roomId, msg });
      expect(res.status).toBe(201);
      return res.body.data._id;
    };
    const acknowledged = [await post('before')];
    await until(() => got.length === 1, 20_000, 'the first message to cross');

    await stopRedis(redisServer);
    const outageEnds = Date.now() + 10_000;
    let i = 0;
    while (Date.now() < outageEnds) {
      acknowledged.push(await post(`during ${i++}`));
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(a.realtime.adapterStats()!.queued).toBeGreaterThan(0);
    redisServer = await startRedis(port);
    await until(() => got.length >= acknowledged.length, 40_000, 'the messages of the outage');
    acknowledged.push(await post('after'));
    await until(() => got.length >= acknowledged.length, 20_000, 'the message after');
    expect(got).toEqual(acknowledged);
    expect(disconnects).toBe(0);
    expect(a.realtime.adapterStats()!).toMatchObject({ queued: 0, dropped: 0 });
  }, 120_000);
});
