// CONTRACT §14, past the bound (REALTIME_ADAPTER=rooms, server mode, two nodes reaching Redis
// through TCP proxies of the test's own, so that an outage keeps Redis's data): node A's outbox holds at most REALTIME_OUTBOX_MAX_EVENTS (5 here) cross-node
// events while Redis is away. More messages are acknowledged in one room than it holds, so the
// oldest are dropped. When Redis returns, node B disconnects its sockets in that room (they may
// have missed events; their clients re-sync through REST), keeps its sockets of a room whose
// events all crossed, and A's own sockets (served at once during the outage) stay as they were.
// The same when the other node's Redis connections come back only after A has announced the gap
// (its proxy reopens later): it reads the gap from the room's stream when it catches up.
// And a client that was away across it all (Redis kept its data; only A was cut off from it)
// does not recover in the room with the gap (it starts fresh and re-syncs), while one in a room
// whose events all crossed recovers with them.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { io, type Socket } from 'socket.io-client';
import { Redis } from 'ioredis';
import { asTestServer } from '../helpers/server.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { startTwoNodes, type TwoNodes } from '../helpers/nodes.js';
import { ApiClient, registerAndLogin } from '../helpers/api.js';
import type { RunningService } from '../../service.js';
import { closeAll, connect } from './socket-client.js';
import { until } from './recovering-client.js';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
const SNS = '/sns/api/v1';
const BOUND = 5;

/** What a socket gets: the text of each `message:new`, and why it was disconnected. */
function watch(socket: Socket): { texts: string[]; disconnects: string[] } {
  const seen = { texts: [] as string[], disconnects: [] as string[] };
  socket.on('message:new', (m: { msg: string }) => seen.texts.push(m.msg));
  socket.on('disconnect', (reason: string) => seen.disconnects.push(reason));
  return seen;
}

describe.skipIf(!enabled)('an outbox overflow during a Redis outage (rooms adapter, two nodes)', () => {
  // Both nodes reach Redis through a proxy of the test's own: closing it is the outage, and Redis
  // keeps its data (one restarted empty tells every socket: node-local.test.ts).
  let proxy: TcpProxy;
  let redisDown = false;
  let a: RunningService;
  let b: RunningService;
  let nodes: TwoNodes | undefined;

  beforeAll(async () => {
    proxy = await TcpProxy.before(process.env.TEST_REDIS_URL!, 6379);
    nodes = await startTwoNodes({ REDIS_URL: proxy.through(process.env.TEST_REDIS_URL!), REALTIME_OUTBOX_MAX_EVENTS: String(BOUND) });
    ({ nodeA: a, nodeB: b } = nodes);
  });
  afterEach(() => closeAll());
  afterAll(async () => {
    // A failed test may leave Redis away: the nodes close faster with it back.
    if (redisDown) proxy = await proxy.reopen();
    await nodes?.close();
    await proxy?.close();
  });

  it('should disconnect the other node’s sockets of the room whose events were dropped, and only those', async () => {
    const [alice, bob, carol, dave] = [
      await registerAndLogin(asTestServer(a)),
      await registerAndLogin(asTestServer(a)),
      await registerAndLogin(asTestServer(a)),
      await registerAndLogin(asTestServer(a)),
    ];
    const aliceOnA = new ApiClient(a.url, alice.token);
    const busy = (await aliceOnA.post(`${SNS}/chat/rooms`, { memberIds: [bob.userId, dave.userId], name: 'busy' })).body.data.roomId;
    const quiet = (await aliceOnA.post(`${SNS}/chat/rooms`, { memberIds: [carol.userId], name: 'quiet' })).body.data.roomId;
    const post = async (roomId: string, msg: string) => expect((await aliceOnA.post(`${SNS}/chat/messages`, { roomId, msg })).status).toBe(201);

    const bobOnB = watch(await connect(b.url, '/chat', bob.token, 'websocket'));
    const carolOnB = watch(await connect(b.url, '/chat', carol.token, 'websocket'));
    const daveOnA = watch(await connect(a.url, '/chat', dave.token, 'websocket'));
    await post(busy, 'busy before');
    await post(quiet, 'quiet before');
    await until(() => bobOnB.texts.length === 1 && carolOnB.texts.length === 1 && daveOnA.texts.length === 1, 20_000, 'the first messages to cross');

    await proxy.close();
    redisDown = true;
    // Once A knows, every broadcast goes to the outbox in order (none is still on its way to a dead Redis).
    await until(() => !a.realtime.adapterStats()!.connected, 20_000, 'A to see Redis gone');
    const during = Array.from({ length: BOUND + 5 }, (_, i) => `busy during ${i}`);
    for (const msg of during) await post(busy, msg);
    // The newest: it stays in the outbox and crosses when Redis returns.
    await post(quiet, 'quiet during');
    // Each acknowledged message is pushed right after its answer: wait for the last one to be.
    await until(() => a.realtime.adapterStats()!.dropped >= during.length + 1 - BOUND, 20_000, 'the outbox to overflow');
    // A's own socket got everything at once.
    await until(() => daveOnA.texts.length === during.length + 1, 20_000, 'A’s own deliveries');
    expect(daveOnA.texts).toEqual(['busy before', ...during]);

    proxy = await proxy.reopen();
    redisDown = false;
    await until(() => bobOnB.disconnects.length > 0, 40_000, 'B to drop its socket of the busy room');
    expect(bobOnB.disconnects).toEqual(['io server disconnect']);
    // The oldest of the outage were dropped; what the outbox kept may have reached Bob first, in order.
    const crossed = bobOnB.texts.slice(1);
    expect(bobOnB.texts[0]).toBe('busy before');
    expect(crossed.length).toBeLessThan(during.length);
    expect(crossed).toEqual(during.slice(during.length - crossed.length));

    await until(() => carolOnB.texts.length === 2, 20_000, 'the quiet room’s message of the outage');
    await post(quiet, 'quiet after');
    await post(busy, 'busy after');
    await until(() => carolOnB.texts.length === 3 && daveOnA.texts.length === during.length + 2, 20_000, 'the messages after');
    expect(carolOnB.texts).toEqual(['quiet before', 'quiet during', 'quiet after']);
    expect(carolOnB.disconnects).toEqual([]);
    expect(daveOnA.disconnects).toEqual([]);
    expect(a.realtime.adapterStats()!.queued).toBe(0);
    expect(b.realtime.adapterStats()!.dropped).toBe(0);
  }, 120_000);
});

describe.skipIf(!enabled)('an outbox overflow announced while the other node is still away from Redis', () => {
  // Each node reaches Redis through a proxy of the test's own (`far` through `proxy`, `sender`
  // through `senderProxy`): closing them is the outage, Redis keeps its data, and each link comes
  // back when the test says.
  let proxy: TcpProxy;
  let senderProxy: TcpProxy;
  let farDown = false;
  let senderDown = false;
  let far: RunningService;
  let sender: RunningService;
  let nodes: TwoNodes | undefined;

  beforeAll(async () => {
    const url = process.env.TEST_REDIS_URL!;
    proxy = await TcpProxy.before(url, 6379);
    senderProxy = await TcpProxy.before(url, 6379);
    nodes = await startTwoNodes({ REDIS_URL: senderProxy.through(url), REALTIME_OUTBOX_MAX_EVENTS: String(BOUND) }, (env) => ({
      ...env,
      REDIS_URL: proxy.through(url),
    }));
    ({ nodeA: far, nodeB: sender } = nodes);
  });
  afterEach(() => closeAll());
  afterAll(async () => {
    if (farDown) proxy = await proxy.reopen();
    if (senderDown) senderProxy = await senderProxy.reopen();
    await nodes?.close();
    await proxy?.close();
    await senderProxy?.close();
  });

  it('should still disconnect the far node’s sockets of that room, from the gap it reads when it catches up', async () => {
    const [alice, bob, carol] = [
      await registerAndLogin(asTestServer(far)),
      await registerAndLogin(asTestServer(far)),
      await registerAndLogin(asTestServer(far)),
    ];
    const aliceOnSender = new ApiClient(sender.url, alice.token);
    const busy = (await aliceOnSender.post(`${SNS}/chat/rooms`, { memberIds: [bob.userId], name: 'busy' })).body.data.roomId;
    const quiet = (await aliceOnSender.post(`${SNS}/chat/rooms`, { memberIds: [carol.userId], name: 'quiet' })).body.data.roomId;
    const post = async (roomId: string, msg: string) => expect((await aliceOnSender.post(`${SNS}/chat/messages`, { roomId, msg })).status).toBe(201);
    const bobOnFar = watch(await connect(far.url, '/chat', bob.token, 'websocket'));
    const carolOnFar = watch(await connect(far.url, '/chat', carol.token, 'websocket'));
    await post(busy, 'busy before');
    await post(quiet, 'quiet before');
    await until(() => bobOnFar.texts.length === 1 && carolOnFar.texts.length === 1, 20_000, 'the first messages to cross');

    await senderProxy.close();
    senderDown = true;
    await proxy.close();
    farDown = true;
    await until(() => !sender.realtime.adapterStats()!.connected && !far.realtime.adapterStats()!.connected, 20_000, 'both nodes to see Redis gone');
    for (let i = 0; i < BOUND + 5; i++) await post(busy, `busy during ${i}`);
    await until(() => sender.realtime.adapterStats()!.dropped > 0, 20_000, 'the outbox to overflow');

    // Redis returns for the sender only: it publishes its outbox and the gap while the far node hears nothing.
    senderProxy = await senderProxy.reopen();
    senderDown = false;
    const redis = new Redis(process.env.TEST_REDIS_URL!);
    try {
      const stream = `${nodes!.env.REDIS_PREFIX}socket.io:log#/chat#=room:${busy}`;
      await until(() => sender.realtime.adapterStats()!.queued === 0 && sender.realtime.adapterStats()!.connected, 40_000, 'the sender to flush its outbox');
      // The gap entry (a DISCONNECT_SOCKETS cluster message) in the busy room's stream.
      const deadline = Date.now() + 20_000;
      for (let found = false; !found;) {
        if (Date.now() > deadline) throw new Error('no gap entry in the busy room’s stream');
        const entries = await redis.xrange(stream, '-', '+');
        found = entries.some(([, fields]) => fields[1].includes('"type":6'));
        if (!found) await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      redis.disconnect();
    }
    expect(bobOnFar.disconnects).toEqual([]);

    proxy = await proxy.reopen();
    farDown = false;
    await until(() => bobOnFar.disconnects.length > 0, 40_000, 'the far node to drop its socket of the busy room');
    expect(bobOnFar.disconnects).toEqual(['io server disconnect']);
    await post(quiet, 'quiet after');
    await until(() => carolOnFar.texts.length === 2, 20_000, 'the quiet room’s message after');
    expect(carolOnFar.texts).toEqual(['quiet before', 'quiet after']);
    expect(carolOnFar.disconnects).toEqual([]);
  }, 150_000);
});

describe.skipIf(!enabled)('a restore across an outbox overflow (the sender cut off from Redis, which keeps its data)', () => {
  let proxy: TcpProxy;
  let proxyClosed = false;
  let sender: RunningService;
  let far: RunningService;
  let nodes: TwoNodes | undefined;
  const away: Socket[] = [];

  beforeAll(async () => {
    proxy = await TcpProxy.before(process.env.TEST_REDIS_URL!, 6379);
    nodes = await startTwoNodes({ REALTIME_OUTBOX_MAX_EVENTS: String(BOUND) }, (env) => ({ ...env, REDIS_URL: proxy.through(env.REDIS_URL) }));
    ({ nodeA: sender, nodeB: far } = nodes);
  });
  afterEach(() => {
    closeAll();
    for (const s of away.splice(0)) s.close();
  });
  afterAll(async () => {
    if (proxyClosed) proxy = await proxy.reopen();
    await nodes?.close();
    await proxy?.close();
  });

  /** A /chat client of `url` that does not reconnect by itself: `connect()` later asks to recover. */
  const client = (url: string, token: string): Promise<Socket> => {
    const socket = io(url + '/chat', { transports: ['websocket'], auth: { token }, reconnection: false, forceNew: true, timeout: 10_000 });
    away.push(socket);
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve(socket));
      socket.once('connect_error', reject);
    });
  };

  it('should start fresh a session whose room lost events, and recover one whose room did not', async () => {
    const [alice, erin, fay] = [
      await registerAndLogin(asTestServer(sender)),
      await registerAndLogin(asTestServer(sender)),
      await registerAndLogin(asTestServer(sender)),
    ];
    const aliceOnSender = new ApiClient(sender.url, alice.token);
    const busy = (await aliceOnSender.post(`${SNS}/chat/rooms`, { memberIds: [erin.userId], name: 'busy' })).body.data.roomId;
    const quiet = (await aliceOnSender.post(`${SNS}/chat/rooms`, { memberIds: [fay.userId], name: 'quiet' })).body.data.roomId;
    const post = async (roomId: string, msg: string) => expect((await aliceOnSender.post(`${SNS}/chat/messages`, { roomId, msg })).status).toBe(201);
    const erinOnFar = await client(far.url, erin.token);
    const fayOnFar = await client(far.url, fay.token);
    const got = { erin: watch(erinOnFar), fay: watch(fayOnFar) };
    await post(busy, 'busy before');
    await post(quiet, 'quiet before');
    await until(() => got.erin.texts.length === 1 && got.fay.texts.length === 1, 20_000, 'the first messages to cross');

    // Both go away (a network drop: the far node keeps their sessions in Redis).
    erinOnFar.io.engine.close();
    fayOnFar.io.engine.close();
    await until(() => got.erin.disconnects.length === 1 && got.fay.disconnects.length === 1, 20_000, 'the drops');

    await proxy.close();
    proxyClosed = true;
    await until(() => !sender.realtime.adapterStats()!.connected, 20_000, 'the sender to see Redis gone');
    for (let i = 0; i < BOUND + 5; i++) await post(busy, `busy during ${i}`);
    await post(quiet, 'quiet during');
    await until(() => sender.realtime.adapterStats()!.dropped >= BOUND + 5 + 1 - BOUND, 20_000, 'the outbox to overflow');

    proxy = await proxy.reopen();
    proxyClosed = false;
    const redis = new Redis(process.env.TEST_REDIS_URL!);
    try {
      await until(() => sender.realtime.adapterStats()!.connected && sender.realtime.adapterStats()!.queued === 0, 40_000, 'the sender to flush its outbox');
      const stream = `${nodes!.env.REDIS_PREFIX}socket.io:log#/chat#=room:${busy}`;
      const deadline = Date.now() + 20_000;
      for (let found = false; !found;) {
        if (Date.now() > deadline) throw new Error('no gap entry in the busy room’s stream');
        found = (await redis.xrange(stream, '-', '+')).some(([, fields]) => fields[1].includes('"type":6'));
        if (!found) await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      redis.disconnect();
    }

    const back = (socket: Socket) =>
      new Promise<void>((resolve, reject) => {
        socket.once('connect', () => resolve());
        socket.once('connect_error', reject);
        socket.connect();
      });
    await back(erinOnFar);
    await back(fayOnFar);
    expect(fayOnFar.recovered).toBe(true);
    await until(() => got.fay.texts.length === 2, 20_000, 'the quiet room’s missed message');
    expect(got.fay.texts).toEqual(['quiet before', 'quiet during']);
    // The busy room lost events after Erin's offset: no recovery with a hole in it.
    expect(erinOnFar.recovered).toBe(false);
    expect(got.erin.texts).toEqual(['busy before']);
  }, 150_000);
});
