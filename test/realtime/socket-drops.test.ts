// A socket that goes away at any moment of its handshake or its life never stops the node
// (CONTRACT §19). Raw websockets send the namespace CONNECT with a valid token and go away after
// 0–20 ms, many times on every namespace; socket.io-clients close as soon as their transport
// opens (websocket and polling); sockets go away right after emitting each event whose handler
// awaits. Afterwards nothing has crashed (the server runs in this process: an unhandled rejection
// or uncaught exception is recorded), and the node still serves HTTP and sockets.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { io } from 'socket.io-client';
import { useTestServer } from '../helpers/fixture.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { createContent } from '../sns/fixtures.js';
import { closeAll, connect, emitAck, type Transport } from './socket-client.js';
import { RawEngine, pause, type Drop } from './raw-engine.js';
import { watchForCrashes } from './crashes.js';

const booted = useTestServer();
const NAMESPACES = ['/chat', '/feed', '/notifications', '/comments', '/processing'];
const DELAYS_MS = [0, 1, 2, 5, 10, 20];
/** Tries per namespace and delay (half cut the TCP connection, half close the websocket). */
const TRIES = 6;

const crashes = watchForCrashes();
let alice: TestUser;
let bob: TestUser;
let roomId: string;
let messageId: string;
let contentId: string;

beforeAll(async () => {
  const server = booted.current;
  alice = await registerAndLogin(server);
  bob = await registerAndLogin(server);
  // Alice follows Bob, so /feed's handshake has follows to read.
  await alice.api.post(`/auth/api/v1/users/${bob.userId}/follow`, undefined, { headers: { 'x-user-id': alice.userId } });
  const room = await alice.api.post('/sns/api/v1/chat/rooms', { memberIds: [bob.userId], name: 'drops' });
  roomId = room.body.data.roomId;
  const message = await alice.api.post('/sns/api/v1/chat/messages', { roomId, msg: 'hello' });
  messageId = message.body.data._id;
  contentId = await createContent(server, bob);
});
afterEach(() => closeAll());
afterAll(() => crashes.stop());

/** Runs `tries` at most `parallel` at a time. */
async function inBatches(tries: (() => Promise<void>)[], parallel = 10): Promise<void> {
  for (let i = 0; i < tries.length; i += parallel) await Promise.all(tries.slice(i, i + parallel).map((t) => t()));
}

/** Goes away `delayMs` after the last packet was written (0: in the same tick). */
async function dropAfter(engine: RawEngine, delayMs: number, how: Drop): Promise<void> {
  if (delayMs > 0) await pause(delayMs);
  engine.drop(how);
}

/** The node answers HTTP and a fresh socket on every namespace works. */
async function stillServes(): Promise<void> {
  const server = booted.current;
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  const me = await alice.api.get('/auth/api/v1/user/me');
  expect(me.status, me.text).toBe(200);
  for (const namespace of NAMESPACES) {
    const socket = await connect(server.url, namespace, alice.token, 'websocket');
    expect(socket.connected).toBe(true);
    socket.close();
  }
  const comments = await connect(server.url, '/comments', alice.token, 'polling');
  expect(await emitAck(comments, 'content:subscribe', { contentId })).toEqual({ ok: true });
}

describe('a socket that goes away during its handshake', () => {
  it('should not stop the node when a raw websocket closes 0–20 ms after CONNECT, on every namespace', async () => {
    const tries: (() => Promise<void>)[] = [];
    for (const namespace of NAMESPACES) {
      for (const delay of DELAYS_MS) {
        for (let i = 0; i < TRIES; i++) {
          tries.push(async () => {
            const engine = await RawEngine.open(booted.url);
            engine.connect(namespace, { token: alice.token });
            await dropAfter(engine, delay, i % 2 ? 'close' : 'terminate');
          });
        }
      }
    }
    await inBatches(tries);
    await pause(300); // what the server does after the drops runs now
    expect(crashes.take()).toEqual([]);
    await stillServes();
  }, 120_000);

  it('should not stop the node when the websocket goes away before the open packet, or right after it', async () => {
    const tries: (() => Promise<void>)[] = [];
    for (let i = 0; i < 20; i++) {
      tries.push(async () => {
        // Cut during the upgrade request, before the server's answer.
        const ws = RawEngine.start(booted.url);
        await new Promise<void>((resolve) => {
          ws.once('upgrade', () => resolve());
          ws.once('error', () => resolve());
          ws.once('close', () => resolve());
          if (i % 2) setImmediate(() => (ws.terminate(), resolve()));
        });
        ws.terminate();
      });
      tries.push(async () => {
        const engine = await RawEngine.open(booted.url);
        engine.drop(i % 2 ? 'close' : 'terminate');
      });
    }
    await inBatches(tries);
    await pause(300);
    expect(crashes.take()).toEqual([]);
    await stillServes();
  }, 60_000);

  it.each(['websocket', 'polling'] as Transport[])(
    'should not stop the node when socket.io-client over %s closes as soon as its transport opens',
    async (transport) => {
      const tries: (() => Promise<void>)[] = [];
      for (const namespace of NAMESPACES) {
        for (let i = 0; i < 8; i++) {
          tries.push(
            () =>
              new Promise<void>((resolve) => {
                const socket = io(booted.url + namespace, { transports: [transport], auth: { token: alice.token }, forceNew: true, reconnection: false });
                // Registered after the socket's own listener, which sends CONNECT: the client leaves right after it.
                socket.io.on('open', () => {
                  socket.io.engine.close();
                  resolve();
                });
                socket.io.on('error', () => resolve());
              }),
          );
        }
      }
      await inBatches(tries);
      await pause(500);
      expect(crashes.take()).toEqual([]);
      await stillServes();
    },
    60_000,
  );
});

describe('a socket that goes away while its event is handled', () => {
  /** Every client event whose handler awaits, with a payload that reaches its deepest await. */
  const events = (): { namespace: string; event: string; payload: unknown }[] => [
    { namespace: '/chat', event: 'room:join', payload: { roomId } },
    { namespace: '/chat', event: 'room:leave', payload: { roomId } },
    { namespace: '/chat', event: 'message:send', payload: { roomId, msg: 'and gone' } },
    { namespace: '/chat', event: 'room:read', payload: { roomId, messageId } },
    { namespace: '/chat', event: 'typing:start', payload: { roomId } },
    { namespace: '/chat', event: 'typing:stop', payload: { roomId } },
    { namespace: '/comments', event: 'content:subscribe', payload: { contentId } },
    { namespace: '/comments', event: 'content:unsubscribe', payload: { contentId } },
    { namespace: '/feed', event: 'content:watch', payload: { contentIds: [contentId] } },
    { namespace: '/feed', event: 'area:watch', payload: { latitude: 10.77, longitude: 106.7, zoom_level: 12 } },
  ];

  it('should not stop the node when the socket goes away 0–20 ms after emitting any event', async () => {
    const tries: (() => Promise<void>)[] = [];
    for (const { namespace, event, payload } of events()) {
      for (const delay of DELAYS_MS) {
        for (let i = 0; i < 3; i++) {
          tries.push(async () => {
            const engine = await RawEngine.open(booted.url);
            engine.connect(namespace, { token: alice.token });
            expect(await engine.connected(namespace)).toMatch(/^40/);
            engine.emit(namespace, event, [payload]);
            await dropAfter(engine, delay, i % 2 ? 'close' : 'terminate');
          });
        }
      }
    }
    await inBatches(tries);
    await pause(300);
    expect(crashes.take()).toEqual([]);
    await stillServes();
  }, 120_000);
});
