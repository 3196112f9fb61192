// Typing indicators on /chat (CONTRACT §18) over websocket and polling: start and stop reach the
// other members (not the typist's own sockets), a start not renewed ends by itself after 6 s, a
// disconnect ends it; members only; bad payloads; the per-socket rate limit (429 in the ack).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { loginAdmin, registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll, connect, emitAck, nextEvent, type Transport } from '../realtime/socket-client.js';

const CHAT = '/sns/api/v1/chat';

async function newRoom(server: TestServer, owner: TestUser, others: TestUser[]): Promise<string> {
  const res = await owner.api.post(`${CHAT}/rooms`, { memberIds: others.map((u) => u.userId), name: `typing-${randomUUID().slice(0, 8)}` });
  expect(res.status).toBe(201);
  return res.body.data.roomId;
}

/** Every `typing` event a socket receives from now on. */
function record(socket: Socket): any[] {
  const seen: any[] = [];
  socket.on('typing', (t) => seen.push(t));
  return seen;
}

describe('typing', () => {
  const booted = useTestServer();
  let server: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  beforeAll(async () => {
    server = booted.current;
    alice = await registerAndLogin(server, { given_name: 'Alice' });
    bob = await registerAndLogin(server, { given_name: 'Bob' });
    carol = await registerAndLogin(server, { given_name: 'Carol' });
  });
  afterEach(() => closeAll());

  describe.each(['websocket', 'polling'] as Transport[])('over %s', (transport) => {
    it('should tell the other members when a member starts and stops typing, not the typist', async () => {
      const roomId = await newRoom(server, alice, [bob]);
      const typist = await connect(server.url, '/chat', alice.token, transport);
      const typistOtherDevice = await connect(server.url, '/chat', alice.token, transport);
      const watcher = await connect(server.url, '/chat', bob.token, transport);
      const ownEvents = record(typistOtherDevice);

      const started = nextEvent(watcher, 'typing', (t: any) => t.roomId === roomId && t.typing);
      expect(await emitAck(typist, 'typing:start', { roomId })).toEqual({ ok: true });
      expect(await started).toEqual({ roomId, userId: alice.userId, typing: true });

      const stopped = nextEvent(watcher, 'typing', (t: any) => t.roomId === roomId && !t.typing);
      expect(await emitAck(typist, 'typing:stop', { roomId })).toEqual({ ok: true });
      expect(await stopped).toEqual({ roomId, userId: alice.userId, typing: false });
      expect(ownEvents).toEqual([]);
    });

    it('should end a start that is not renewed within 6 s by itself', async () => {
      const roomId = await newRoom(server, alice, [bob]);
      const typist = await connect(server.url, '/chat', alice.token, transport);
      const watcher = await connect(server.url, '/chat', bob.token, transport);
      const events = record(watcher);
      const started = nextEvent(watcher, 'typing', (t: any) => t.typing);
      expect(await emitAck(typist, 'typing:start', { roomId })).toEqual({ ok: true });
      await started;
      const startedAt = Date.now();
      // Renewing within the 6 s keeps it going without a second `typing: true`.
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await emitAck(typist, 'typing:start', { roomId })).toEqual({ ok: true });
      const expired = await nextEvent(watcher, 'typing', (t: any) => !t.typing, 20_000);
      expect(expired).toEqual({ roomId, userId: alice.userId, typing: false });
      // Ended 6 s after the renewal, not 6 s after the first start.
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(8_500);
      expect(events.filter((t) => t.typing)).toHaveLength(1);
    }, 40_000);

    it('should end the typing of a socket that disconnects', async () => {
      const roomId = await newRoom(server, alice, [bob]);
      const typist = await connect(server.url, '/chat', alice.token, transport);
      const watcher = await connect(server.url, '/chat', bob.token, transport);
      const started = nextEvent(watcher, 'typing', (t: any) => t.typing);
      await emitAck(typist, 'typing:start', { roomId });
      await started;
      const ended = nextEvent(watcher, 'typing', (t: any) => !t.typing);
      typist.close();
      expect(await ended).toEqual({ roomId, userId: alice.userId, typing: false });
    });

    it('should refuse non-members, unknown rooms and bad payloads in the ack', async () => {
      const roomId = await newRoom(server, alice, [bob]);
      const outsider = await connect(server.url, '/chat', carol.token, transport);
      expect(await emitAck(outsider, 'typing:start', { roomId })).toMatchObject({ ok: false, error_code: 'chat.error.not_member' });
      expect(await emitAck(outsider, 'typing:stop', { roomId })).toMatchObject({ ok: false, error_code: 'chat.error.not_member' });
      expect(await emitAck(outsider, 'typing:start', { roomId: randomUUID() })).toMatchObject({ ok: false, error_code: 'chat.error.room_not_found' });
      for (const bad of [{}, { roomId: 5 }, 'room', { roomId, extra: true }]) {
        expect(await emitAck(outsider, 'typing:start', bad)).toMatchObject({ ok: false, error_code: expect.stringMatching(/^validation\.error\./) });
      }
    });

    it('should reach a member who joined the room after connecting', async () => {
      const watcher = await connect(server.url, '/chat', bob.token, transport);
      const roomId = await newRoom(server, alice, [bob]);
      expect(await emitAck(watcher, 'room:join', { roomId })).toEqual({ ok: true });
      const typist = await connect(server.url, '/chat', alice.token, transport);
      const started = nextEvent(watcher, 'typing', (t: any) => t.roomId === roomId && t.typing);
      expect(await emitAck(typist, 'typing:start', { roomId })).toEqual({ ok: true });
      await started;
    });
  });
});

describe('typing rate limit (RATE_LIMIT_SCALE=1)', () => {
  const booted = useTestServer({ RATE_LIMIT_SCALE: '1' });
  afterEach(() => closeAll());

  // Real limits: the auth limit (5 per minute per IP) allows one registration and one login here.
  it('should refuse the 11th typing event within 10 s on one socket with 429, over websocket and polling', async () => {
    const server = booted.current;
    const alice = await registerAndLogin(server);
    const admin = await loginAdmin(server);
    const roomId = await newRoom(server, alice, [admin]);
    for (const transport of ['websocket', 'polling'] as Transport[]) {
      const socket = await connect(server.url, '/chat', alice.token, transport);
      for (let i = 0; i < 10; i++) expect(await emitAck(socket, i % 2 ? 'typing:stop' : 'typing:start', { roomId })).toEqual({ ok: true });
      expect(await emitAck(socket, 'typing:start', { roomId })).toMatchObject({ ok: false, error_code: 'rate_limit.error.exceeded' });
    }
    // Another socket has its own allowance.
    const other = await connect(server.url, '/chat', alice.token, 'websocket');
    expect(await emitAck(other, 'typing:start', { roomId })).toEqual({ ok: true });
  });
});
