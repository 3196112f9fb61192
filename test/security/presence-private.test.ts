// Presence is private (CONTRACT §19, issue 24 finding 8): GET /presence and live `presence` events
// show a user online, with last_seen_at, only to people who share a room with them that they
// created or sent a message in, and only while their privacy.show_presence is on (default true);
// a stranger who opens a room with them learns nothing, and turning the setting off or on is
// told at once to the rooms that see them.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll, connect, nextEvent } from '../realtime/socket-client.js';

const SNS = '/sns/api/v1';
const booted = useTestServer();
let server: TestServer;
beforeAll(() => {
  server = booted.current;
});
afterEach(() => closeAll());

async function presenceOf(viewer: TestUser, id: string): Promise<{ online: boolean; last_seen_at: string | null }> {
  const res = await viewer.api.get(`${SNS}/presence?user_ids=${id}`);
  expect(res.status, res.text).toBe(200);
  const [item] = res.body.data.users;
  return { online: item.online, last_seen_at: item.last_seen_at };
}

/** Every `presence` event about `userId` a socket receives from now on. */
function record(socket: Socket, userId: string): any[] {
  const seen: any[] = [];
  socket.on('presence', (p) => {
    if (p.userId === userId) seen.push(p);
  });
  return seen;
}

const openRoom = async (creator: TestUser, member: TestUser): Promise<string> => {
  const res = await creator.api.post(`${SNS}/chat/rooms`, { memberIds: [member.userId], name: `room ${Math.random()}` });
  expect(res.status, res.text).toBe(201);
  return res.body.data.roomId;
};

const setShowPresence = async (user: TestUser, value: unknown) => user.api.put('/content/api/v1/user/settings', { privacy: { show_presence: value } });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const HIDDEN = { online: false, last_seen_at: null };

describe('presence is private', () => {
  it('should tell a stranger who opens a room with the user nothing, until the user writes in it', async () => {
    const target = await registerAndLogin(server);
    const stranger = await registerAndLogin(server);
    const roomId = await openRoom(stranger, target);
    const watching = await connect(server.url, '/chat', stranger.token, 'websocket');
    const seen = record(watching, target.userId);

    let socket = await connect(server.url, '/chat', target.token, 'websocket');
    await pause(800);
    expect(await presenceOf(stranger, target.userId)).toEqual(HIDDEN);
    socket.close();
    await pause(800);
    expect(await presenceOf(stranger, target.userId)).toEqual(HIDDEN);
    expect(seen).toEqual([]);
    // The stranger created the room: the target sees the stranger.
    expect((await presenceOf(target, stranger.userId)).online).toBe(true);

    // Once the target writes in the room, the stranger is someone they talk to.
    expect((await target.api.post(`${SNS}/chat/messages`, { roomId, msg: 'Hello' })).status).toBe(201);
    const online = nextEvent(watching, 'presence', (p: any) => p.userId === target.userId && p.online);
    socket = await connect(server.url, '/chat', target.token, 'websocket');
    expect(await online).toMatchObject({ userId: target.userId, online: true });
    expect((await presenceOf(stranger, target.userId)).online).toBe(true);
    socket.close();
  });

  it('should show nothing to users who share no such room, for 100 ids a request', async () => {
    const target = await registerAndLogin(server);
    const other = await registerAndLogin(server);
    await connect(server.url, '/chat', target.token, 'websocket');
    await pause(500);
    const res = await other.api.get(`${SNS}/presence?user_ids=${[target.userId, ...Array.from({ length: 99 }, () => target.userId)].join(',')}`);
    expect(res.status).toBe(200);
    expect(res.body.data.users).toEqual([{ user_id: target.userId, ...HIDDEN }]);
    // One's own presence is one's own.
    expect((await presenceOf(target, target.userId)).online).toBe(true);
  });

  it('should follow privacy.show_presence (default on): off hides at once, live and in GET; on shows again', async () => {
    const user = await registerAndLogin(server);
    const friend = await registerAndLogin(server);
    await openRoom(user, friend);
    expect((await user.api.get('/content/api/v1/user/settings')).body.data.privacy.show_presence).toBe(true);
    const watching = await connect(server.url, '/chat', friend.token, 'websocket');

    const online = nextEvent(watching, 'presence', (p: any) => p.userId === user.userId && p.online);
    const socket = await connect(server.url, '/chat', user.token, 'websocket');
    await online;
    expect((await presenceOf(friend, user.userId)).online).toBe(true);

    const hidden = nextEvent(watching, 'presence', (p: any) => p.userId === user.userId && !p.online);
    expect((await setShowPresence(user, false)).status).toBe(200);
    expect(await hidden).toEqual({ userId: user.userId, ...HIDDEN });
    expect(await presenceOf(friend, user.userId)).toEqual(HIDDEN);

    // While hidden, going and coming back tells the friend nothing, and last_seen_at stays hidden.
    const seen = record(watching, user.userId);
    socket.close();
    await pause(800);
    await connect(server.url, '/chat', user.token, 'websocket');
    await pause(800);
    expect(seen).toEqual([]);
    expect(await presenceOf(friend, user.userId)).toEqual(HIDDEN);

    const shown = nextEvent(watching, 'presence', (p: any) => p.userId === user.userId && p.online);
    expect((await setShowPresence(user, true)).status).toBe(200);
    expect(await shown).toMatchObject({ userId: user.userId, online: true, last_seen_at: expect.any(String) });
    expect((await presenceOf(friend, user.userId)).online).toBe(true);
  });

  it('should refuse a show_presence that is not a boolean', async () => {
    const user = await registerAndLogin(server);
    for (const value of ['yes', 1, null, { on: true }]) expect((await setShowPresence(user, value)).status).toBe(400);
  });
});
