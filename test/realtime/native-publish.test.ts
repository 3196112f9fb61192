// Room broadcasts through uWebSockets.js topics (realtime/transport/uws-binding.ts, REALTIME_NATIVE_PUBLISH):
// a one-room broadcast is encoded once and published to the room's topic, and written by hand only
// to the room's long-polling sockets. Every member gets every event once and in order, whether it
// is on a websocket, on long-polling, or upgraded from one to the other after joining; a socket
// that left the room and a non-member get none. The same with the setting off (socket by socket).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { io, type Socket } from 'socket.io-client';
import { useTestServer } from '../helpers/fixture.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll, connect, emitAck, nextEvent } from './socket-client.js';

const SNS = '/sns/api/v1';

/** A /chat client that starts on long-polling and upgrades to websocket (socket.io-client's default); resolves once upgraded. */
async function upgradingClient(baseUrl: string, token: string, opened: Socket[]): Promise<Socket> {
  const socket = io(baseUrl + '/chat', { transports: ['polling', 'websocket'], auth: { token }, reconnection: false, forceNew: true, timeout: 10_000 });
  opened.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  if (socket.io.engine.transport.name !== 'websocket') await new Promise((resolve) => socket.io.engine.once('upgrade', resolve));
  return socket;
}

/** Collects the text of every `message:new` the socket gets. */
function received(socket: Socket): string[] {
  const texts: string[] = [];
  socket.on('message:new', (m: { msg: string }) => texts.push(m.msg));
  return texts;
}

describe.each(['on', 'off'])('REALTIME_NATIVE_PUBLISH=%s', (setting) => {
  const booted = useTestServer({ REALTIME_NATIVE_PUBLISH: setting });
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let erin: TestUser;
  let dave: TestUser;
  const upgraded: Socket[] = [];

  beforeAll(async () => {
    const server = booted.current;
    alice = await registerAndLogin(server, { given_name: 'Alice', family_name: 'Pub' });
    bob = await registerAndLogin(server, { given_name: 'Bob', family_name: 'Pub' });
    carol = await registerAndLogin(server, { given_name: 'Carol', family_name: 'Pub' });
    erin = await registerAndLogin(server, { given_name: 'Erin', family_name: 'Pub' });
    dave = await registerAndLogin(server, { given_name: 'Dave', family_name: 'Pub' });
  });
  afterEach(() => {
    closeAll();
    for (const s of upgraded.splice(0)) s.close();
  });

  it('should give every member each room event once and in order, over websocket, polling and after an upgrade; a non-member none', async () => {
    const server = booted.current;
    const room = (await alice.api.post(`${SNS}/chat/rooms`, { memberIds: [bob.userId, carol.userId, erin.userId], name: `pub-${setting}` })).body.data;
    const sockets = {
      bob: await connect(server.url, '/chat', bob.token, 'websocket'),
      carol: await connect(server.url, '/chat', carol.token, 'polling'),
      // Joins its rooms on connect while on polling, then upgrades: from then on the topic reaches it.
      erin: await upgradingClient(server.url, erin.token, upgraded),
      dave: await connect(server.url, '/chat', dave.token, 'websocket'),
    };
    expect(sockets.erin.io.engine.transport.name).toBe('websocket');
    expect(sockets.carol.io.engine.transport.name).toBe('polling');
    const got = { bob: received(sockets.bob), carol: received(sockets.carol), erin: received(sockets.erin), dave: received(sockets.dave) };

    const texts = ['one', 'two', 'three', 'four', 'five'];
    const last = [sockets.bob, sockets.carol, sockets.erin].map((s) => nextEvent(s, 'message:new', (m: { msg: string }) => m.msg === 'five'));
    for (const msg of texts) expect((await alice.api.post(`${SNS}/chat/messages`, { roomId: room.roomId, msg })).status).toBe(201);
    await Promise.all(last);

    expect(got.bob).toEqual(texts);
    expect(got.carol).toEqual(texts);
    expect(got.erin).toEqual(texts);
    expect(got.dave).toEqual([]);
  });

  it("should stop a room's events to the sockets that left it, on a websocket and on polling, and keep them for the others", async () => {
    const server = booted.current;
    const room = (await alice.api.post(`${SNS}/chat/rooms`, { memberIds: [bob.userId, carol.userId, erin.userId], name: `leave-${setting}` })).body.data;
    const bobSocket = await connect(server.url, '/chat', bob.token, 'websocket');
    const carolSocket = await connect(server.url, '/chat', carol.token, 'polling');
    const erinSocket = await connect(server.url, '/chat', erin.token, 'websocket');
    const got = { bob: received(bobSocket), carol: received(carolSocket), erin: received(erinSocket) };

    const first = [bobSocket, carolSocket, erinSocket].map((s) => nextEvent(s, 'message:new', (m: { msg: string }) => m.msg === 'before'));
    expect((await alice.api.post(`${SNS}/chat/messages`, { roomId: room.roomId, msg: 'before' })).status).toBe(201);
    await Promise.all(first);

    expect(await emitAck(bobSocket, 'room:leave', { roomId: room.roomId })).toEqual({ ok: true });
    expect(await emitAck(carolSocket, 'room:leave', { roomId: room.roomId })).toEqual({ ok: true });
    const after = nextEvent(erinSocket, 'message:new', (m: { msg: string }) => m.msg === 'after');
    expect((await alice.api.post(`${SNS}/chat/messages`, { roomId: room.roomId, msg: 'after' })).status).toBe(201);
    await after;
    // A later event on each of their own sockets, sent after 'after': anything of the room would have come first.
    const marks = [bobSocket, carolSocket].map((s) => nextEvent(s, 'message:new', (m: { msg: string }) => m.msg === 'mark'));
    const side = (await alice.api.post(`${SNS}/chat/rooms`, { memberIds: [bob.userId, carol.userId], name: `mark-${setting}` })).body.data;
    expect(await emitAck(bobSocket, 'room:join', { roomId: side.roomId })).toEqual({ ok: true });
    expect(await emitAck(carolSocket, 'room:join', { roomId: side.roomId })).toEqual({ ok: true });
    expect((await alice.api.post(`${SNS}/chat/messages`, { roomId: side.roomId, msg: 'mark' })).status).toBe(201);
    await Promise.all(marks);

    expect(got.bob).toEqual(['before', 'mark']);
    expect(got.carol).toEqual(['before', 'mark']);
    expect(got.erin).toEqual(['before', 'after']);
  });
});
