// Presence (CONTRACT §18) on one node, over websocket and polling: a user's first /chat socket
// makes them online and their last one offline with last_seen_at; members of a shared room get
// `presence` once (even when they share several rooms), people who share no room get nothing;
// GET /sns/api/v1/presence answers the same, and refuses bad input.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll, connect, nextEvent, type Transport } from '../realtime/socket-client.js';

const SNS = '/sns/api/v1';

let server: TestServer;
let watcher: TestUser;
let stranger: TestUser;

const booted = useTestServer();
beforeAll(async () => {
  server = booted.current;
  watcher = await registerAndLogin(server, { given_name: 'Watcher' });
  stranger = await registerAndLogin(server, { given_name: 'Stranger' });
});
afterEach(() => closeAll());

async function presenceOf(viewer: TestUser, ids: string[]): Promise<any[]> {
  const res = await viewer.api.get(`${SNS}/presence?user_ids=${ids.map(encodeURIComponent).join(',')}`);
  expect(res.status).toBe(200);
  return res.body.data.users;
}

/** Every `presence` event about `userId` a socket receives from now on. */
function record(socket: Socket, userId: string): any[] {
  const seen: any[] = [];
  socket.on('presence', (p) => {
    if (p.userId === userId) seen.push(p);
  });
  return seen;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(['websocket', 'polling'] as Transport[])('presence over %s', (transport) => {
  it('should go online with the first socket and offline with the last, once per change, to shared rooms only', async () => {
    const user = await registerAndLogin(server, { given_name: 'Online' });
    // Two shared rooms: the watcher still gets each change once.
    for (const name of ['one', 'two']) expect((await user.api.post(`${SNS}/chat/rooms`, { memberIds: [watcher.userId], name })).status).toBe(201);
    expect(await presenceOf(watcher, [user.userId])).toEqual([{ user_id: user.userId, online: false, last_seen_at: null }]);

    const watching = await connect(server.url, '/chat', watcher.token, transport);
    const outsider = await connect(server.url, '/chat', stranger.token, transport);
    const seen = record(watching, user.userId);
    const seenByOutsider = record(outsider, user.userId);

    const online = nextEvent(watching, 'presence', (p: any) => p.userId === user.userId && p.online);
    const first = await connect(server.url, '/chat', user.token, transport);
    expect(await online).toEqual({ userId: user.userId, online: true, last_seen_at: null });
    expect(await presenceOf(watcher, [user.userId])).toEqual([{ user_id: user.userId, online: true, last_seen_at: null }]);
    // Presence is private (CONTRACT §19): someone who shares no room with the user reads nothing.
    expect(await presenceOf(stranger, [user.userId])).toEqual([{ user_id: user.userId, online: false, last_seen_at: null }]);

    // A second socket, then closing one of the two: still online, nothing sent.
    const second = await connect(server.url, '/chat', user.token, transport);
    second.close();
    await pause(500);
    expect((await presenceOf(watcher, [user.userId]))[0].online).toBe(true);

    const offline = nextEvent(watching, 'presence', (p: any) => p.userId === user.userId && !p.online);
    const closedAt = Date.now();
    first.close();
    const went = await offline;
    expect(went).toMatchObject({ userId: user.userId, online: false });
    expect(Math.abs(new Date(went.last_seen_at).getTime() - closedAt)).toBeLessThan(60_000);
    expect(await presenceOf(watcher, [user.userId])).toEqual([{ user_id: user.userId, online: false, last_seen_at: went.last_seen_at }]);

    await pause(500);
    expect(seen).toEqual([
      { userId: user.userId, online: true, last_seen_at: null },
      { userId: user.userId, online: false, last_seen_at: went.last_seen_at },
    ]);
    expect(seenByOutsider).toEqual([]);

    // Back again: online, and the previous last_seen_at is kept until the next time they go.
    const again = nextEvent(watching, 'presence', (p: any) => p.userId === user.userId && p.online);
    await connect(server.url, '/chat', user.token, transport);
    expect(await again).toEqual({ userId: user.userId, online: true, last_seen_at: went.last_seen_at });
  });

  it('should not count sockets of other namespaces', async () => {
    const user = await registerAndLogin(server);
    await connect(server.url, '/notifications', user.token, transport);
    expect((await presenceOf(watcher, [user.userId]))[0].online).toBe(false);
  });
});

describe('GET /sns/api/v1/presence', () => {
  it('should fail with 401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).get(`${SNS}/presence?user_ids=${watcher.userId}`), 401);
  });

  it.each([
    ['no user_ids', ''],
    ['an empty list', '?user_ids='],
    ['an empty id in the list', `?user_ids=a,,b`],
    ['101 ids', `?user_ids=${Array.from({ length: 101 }, () => randomUUID()).join(',')}`],
    ['an id over 100 characters', `?user_ids=${'x'.repeat(101)}`],
    ['an unknown parameter', '?user_ids=a&all=1'],
  ])('should fail with 400 with %s', async (_case, query) => {
    expectErrorEnvelope(await watcher.api.get(`${SNS}/presence${query}`), 400);
  });

  it('should answer every id in order, once, unknown ones as never seen', async () => {
    const unknown = randomUUID();
    const never = await registerAndLogin(server);
    const users = await presenceOf(watcher, [never.userId, 'not-a-user', unknown, never.userId]);
    expect(users).toEqual([
      { user_id: never.userId, online: false, last_seen_at: null },
      { user_id: 'not-a-user', online: false, last_seen_at: null },
      { user_id: unknown, online: false, last_seen_at: null },
    ]);
  });

  it('should take 100 ids', async () => {
    const ids = Array.from({ length: 100 }, () => randomUUID());
    expect(await presenceOf(watcher, ids)).toHaveLength(100);
  });
});
