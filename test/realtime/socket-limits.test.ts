// Socket limits (CONTRACT §19, SPEC §8): every client event on every namespace counts against the
// caller's `general` limit, the same counter REST requests use (so sockets are no way around the
// limits), and past it is answered `{ok:false, error_code:'rate_limit.error.exceeded', message}`;
// one user holds at most 20 connections on a node (the next is refused with
// `too_many_connections`), one connection at most one socket per namespace, and a closed
// connection gives its place back.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Manager, io, type Socket } from 'socket.io-client';
import type { TestServer } from '../helpers/server.js';
import { useTestServer } from '../helpers/fixture.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { createContent } from '../sns/fixtures.js';
import { closeAll, connect, emitAck, refusal, type Transport } from './socket-client.js';
import { RawEngine } from './raw-engine.js';
import { until } from './recovering-client.js';
import { roomInTheWindow } from '../helpers/rate-window.js';

// general: 100 × 0.2 = 20 per minute per user. The scale also leaves `auth` at 1 per IP, so with
// TRUST_PROXY each registration step comes from its own address.
const booted = useTestServer({ RATE_LIMIT_SCALE: '0.2', TRUST_PROXY: '1' });
const GENERAL_PER_MINUTE = 20;
const MAX_CONNECTIONS = 20;
const RATE_LIMITED = { ok: false, error_code: 'rate_limit.error.exceeded', message: expect.any(String) };

let server: TestServer;
let addresses = 0;

beforeAll(() => {
  server = booted.current;
});
afterEach(() => closeAll());

/** Registers, verifies and logs in with each step from a fresh client address (auth limit is per IP). */
async function freshUser(): Promise<TestUser> {
  const original = globalThis.fetch;
  globalThis.fetch = (input: RequestInfo | URL, init: RequestInit = {}) =>
    original(input, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), 'x-forwarded-for': `198.51.${Math.floor(addresses / 250)}.${(addresses++ % 250) + 1}` },
    });
  try {
    return await registerAndLogin(server);
  } finally {
    globalThis.fetch = original;
  }
}

/** What a user's events act on: a room with a message, and a published content item (made by someone else, on their own budget). */
async function fixturesFor(user: TestUser) {
  const owner = await freshUser();
  const room = (await owner.api.post('/sns/api/v1/chat/rooms', { memberIds: [user.userId], name: 'limits' })).body.data;
  const message = (await owner.api.post('/sns/api/v1/chat/messages', { roomId: room.roomId, msg: 'hello' })).body.data;
  const contentId = await createContent(server, owner);
  return { roomId: room.roomId as string, messageId: message._id as string, contentId };
}
type Fixtures = Awaited<ReturnType<typeof fixturesFor>>;

interface EventCase {
  namespace: string;
  event: string;
  payload: (f: Fixtures) => unknown;
  /** Refused earlier by a tighter limit of its own (typing: 10 per 10 s per socket, scaled). */
  ownLimit?: boolean;
}

const EVENTS: EventCase[] = [
  { namespace: '/chat', event: 'room:join', payload: (f) => ({ roomId: f.roomId }) },
  { namespace: '/chat', event: 'room:leave', payload: (f) => ({ roomId: f.roomId }) },
  { namespace: '/chat', event: 'message:send', payload: (f) => ({ roomId: f.roomId, msg: 'again' }) },
  { namespace: '/chat', event: 'room:read', payload: (f) => ({ roomId: f.roomId, messageId: f.messageId }) },
  { namespace: '/chat', event: 'typing:start', payload: (f) => ({ roomId: f.roomId }), ownLimit: true },
  { namespace: '/chat', event: 'typing:stop', payload: (f) => ({ roomId: f.roomId }), ownLimit: true },
  { namespace: '/comments', event: 'content:subscribe', payload: (f) => ({ contentId: f.contentId }) },
  { namespace: '/comments', event: 'content:unsubscribe', payload: (f) => ({ contentId: f.contentId }) },
  { namespace: '/feed', event: 'content:watch', payload: (f) => ({ contentIds: [f.contentId] }) },
  { namespace: '/feed', event: 'area:watch', payload: () => ({ latitude: 10.77, longitude: 106.7, zoom_level: 12 }) },
  // No client events there: anything sent is answered unknown_event, and counted all the same.
  { namespace: '/notifications', event: 'notification:read', payload: () => ({}) },
  { namespace: '/processing', event: 'video:cancel', payload: () => ({}) },
];

describe('every client event is rate limited per user', () => {
  it.each(EVENTS)(
    '$namespace $event: refused past the general limit with the rate-limit ack',
    async ({ namespace, event, payload, ownLimit }) => {
      const user = await freshUser();
      const fixtures = await fixturesFor(user);
      const transport: Transport = event.length % 2 ? 'websocket' : 'polling';
      await roomInTheWindow();
      const socket = await connect(server.url, namespace, user.token, transport);
      const acks: any[] = [];
      for (let i = 0; i < GENERAL_PER_MINUTE; i++) acks.push(await emitAck(socket, event, payload(fixtures)));
      // Within the budget: answered by the handler (success or its own error), never the general limit.
      if (!ownLimit) expect(acks.filter((a) => a.error_code === 'rate_limit.error.exceeded')).toEqual([]);
      for (const a of acks) expect(a.ok === true || typeof a.error_code === 'string').toBe(true);
      // Past it: this event, any other event, and the same user's other sockets are refused.
      expect(await emitAck(socket, event, payload(fixtures))).toEqual(RATE_LIMITED);
      expect(await emitAck(socket, 'no:such:event', {})).toEqual(RATE_LIMITED);
      const second = await connect(server.url, namespace, user.token, 'websocket');
      expect(await emitAck(second, event, payload(fixtures))).toEqual(RATE_LIMITED);
      // REST shares the counter.
      expect((await user.api.get('/sns/api/v1/chat/rooms')).status).toBe(429);
      // Another user is not affected.
      const other = await freshUser();
      const theirs = await connect(server.url, namespace, other.token, transport);
      expect((await emitAck(theirs, event, payload(fixtures))).error_code).not.toBe('rate_limit.error.exceeded');
    },
    60_000,
  );

  it('should answer an event the namespace does not have with unknown_event, until the limit', async () => {
    const user = await freshUser();
    await roomInTheWindow();
    const socket = await connect(server.url, '/notifications', user.token, 'websocket');
    const acks = [];
    for (let i = 0; i < GENERAL_PER_MINUTE + 1; i++) acks.push(await emitAck(socket, 'message:send', { roomId: 'x' }));
    expect(acks.slice(0, GENERAL_PER_MINUTE)).toEqual(
      Array(GENERAL_PER_MINUTE).fill({ ok: false, error_code: 'realtime.error.unknown_event', message: expect.any(String) }),
    );
    expect(acks[GENERAL_PER_MINUTE]).toEqual(RATE_LIMITED);
  });

  it('should count events sent without an ack callback too', async () => {
    const user = await freshUser();
    const { contentId } = await fixturesFor(user);
    await roomInTheWindow();
    const socket = await connect(server.url, '/comments', user.token, 'websocket');
    for (let i = 0; i < GENERAL_PER_MINUTE; i++) socket.emit('content:subscribe', { contentId });
    expect(await emitAck(socket, 'content:subscribe', { contentId })).toEqual(RATE_LIMITED);
  });
});

describe('connections per user', () => {
  const namespaces = ['/chat', '/feed', '/notifications', '/comments', '/processing'];
  const tooMany = (err: Error & { data?: any }) => {
    expect(err.message).toBe('too_many_connections');
    expect(err.data).toEqual({ error_code: 'realtime.error.too_many_connections' });
  };

  it('should refuse the 21st connection of a user on a node with too_many_connections, on any namespace and transport', async () => {
    const user = await freshUser();
    const other = await freshUser();
    const sockets: Socket[] = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) {
      sockets.push(await connect(server.url, namespaces[i % namespaces.length], user.token, i % 3 ? 'websocket' : 'polling'));
    }
    for (const namespace of namespaces) tooMany(await refusal(server.url, namespace, user.token, 'websocket'));
    tooMany(await refusal(server.url, '/chat', user.token, 'polling'));
    // Per user: someone else still connects.
    expect((await connect(server.url, '/chat', other.token, 'websocket')).connected).toBe(true);

    // A closed socket gives its place back (its connection closes with it).
    sockets.pop()!.close();
    const again = await retryUntilConnected(() => connect(server.url, '/feed', user.token, 'websocket'));
    expect(again.connected).toBe(true);
    tooMany(await refusal(server.url, '/feed', user.token, 'websocket'));
  }, 60_000);

  it('should count one connection once, whatever namespaces it carries', async () => {
    const user = await freshUser();
    for (let i = 0; i < MAX_CONNECTIONS - 1; i++) await connect(server.url, '/processing', user.token, 'websocket');
    // One Manager, one connection, five namespaces: the 20th connection.
    const manager = new Manager(server.url, { transports: ['websocket'], reconnection: false, forceNew: true });
    try {
      const multiplexed = namespaces.map((namespace) => manager.socket(namespace, { auth: { token: user.token } }));
      await Promise.all(multiplexed.map((s) => new Promise<void>((resolve, reject) => (s.once('connect', () => resolve()), s.once('connect_error', reject)))));
      tooMany(await refusal(server.url, '/chat', user.token, 'websocket'));
    } finally {
      manager.engine?.close();
    }
  }, 60_000);

  it('should refuse a second CONNECT of a namespace on one connection while the first is pending', async () => {
    const user = await freshUser();
    const engine = await RawEngine.open(server.url);
    try {
      for (let i = 0; i < 5; i++) engine.connect('/chat', { token: user.token });
      await until(() => engine.packets().filter((p) => /^4[04]\/chat,/.test(p)).length === 5, 10_000, 'five answers');
      const answers = engine.packets().filter((p) => /^4[04]\/chat,/.test(p));
      expect(answers.filter((p) => p.startsWith('40/chat,')).length).toBe(1);
      for (const p of answers.filter((a) => a.startsWith('44/chat,')))
        expect(JSON.parse(p.slice('44/chat,'.length))).toEqual({
          message: 'too_many_connections',
          data: { error_code: 'realtime.error.too_many_connections' },
        });
    } finally {
      engine.drop();
    }
  });

  it('should not let a recovering socket past the limit: it starts fresh and is refused', async () => {
    const user = await freshUser();
    const victim = io(server.url + '/notifications', { transports: ['websocket'], auth: { token: user.token }, forceNew: true, reconnection: false });
    await new Promise<void>((resolve, reject) => (victim.once('connect', () => resolve()), victim.once('connect_error', reject)));
    await until(() => typeof Reflect.get(victim, '_lastOffset') === 'string', 10_000, 'a recovery offset');
    victim.io.engine.close(); // dropped: its place is free, its session kept for recovery
    await until(() => !victim.connected, 10_000, 'the drop');
    await retryUntilConnected(() => connect(server.url, '/chat', user.token, 'websocket'));
    for (let i = 1; i < MAX_CONNECTIONS; i++) await connect(server.url, '/chat', user.token, 'websocket');
    const refused = new Promise<Error>((resolve) => victim.once('connect_error', resolve));
    victim.connect();
    tooMany(await refused);
    expect(victim.recovered).toBe(false);
    victim.close();
  }, 60_000);
});

/** Connects, retrying while the server has not yet seen a just-closed connection go (bounded). */
async function retryUntilConnected(attempt: () => Promise<Socket>): Promise<Socket> {
  let last: unknown;
  for (let i = 0; i < 20; i++) {
    try {
      return await attempt();
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw last;
}
