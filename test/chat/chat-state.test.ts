// Chat beyond sending (CONTRACT §18) over the real server: edit (sender, 15-minute window), delete
// (tombstones in the history), reactions, read positions and unread counts, the room list (order,
// paging, last_message), catching up with ?after=, and each push on /chat over websocket and
// polling. Refusals: non-members, non-senders, unknown ids, bad input.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll, connect, emitAck, nextEvent, type Transport } from '../realtime/socket-client.js';

const CHAT = '/sns/api/v1/chat';

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;

const booted = useTestServer();
beforeAll(async () => {
  server = booted.current;
  alice = await registerAndLogin(server, { given_name: 'Alice', family_name: 'Nguyen' });
  bob = await registerAndLogin(server, { given_name: 'Bob', family_name: 'Tran' });
  carol = await registerAndLogin(server, { given_name: 'Carol', family_name: 'Le' });
});
afterEach(() => closeAll());

async function newRoom(owner: TestUser, others: TestUser[], name = `room-${randomUUID().slice(0, 8)}`): Promise<string> {
  const res = await owner.api.post(`${CHAT}/rooms`, { memberIds: others.map((u) => u.userId), name });
  expect(res.status).toBe(201);
  return res.body.data.roomId;
}

async function send(user: TestUser, roomId: string, msg: string): Promise<any> {
  const res = await user.api.post(`${CHAT}/messages`, { roomId, msg });
  expect(res.status).toBe(201);
  return res.body.data;
}

const edit = (user: TestUser | ApiClient, id: string, body: unknown) => ('api' in user ? user.api : user).request('PATCH', `${CHAT}/messages/${id}`, { body });
const remove = (user: TestUser | ApiClient, id: string) => ('api' in user ? user.api : user).request('DELETE', `${CHAT}/messages/${id}`);
const react = (user: TestUser, id: string, body: unknown) => user.api.post(`${CHAT}/messages/${id}/reactions`, body);
const unreact = (user: TestUser, id: string, body: unknown) => user.api.request('DELETE', `${CHAT}/messages/${id}/reactions`, { body });
const history = async (user: TestUser, roomId: string, query = ''): Promise<any> => {
  const res = await user.api.get(`${CHAT}/rooms/${roomId}/messages${query}`);
  expect(res.status).toBe(200);
  return res.body.data;
};
const roomsOf = async (user: TestUser, query = ''): Promise<any> => {
  const res = await user.api.get(`${CHAT}/rooms${query}`);
  expect(res.status).toBe(200);
  return res.body.data;
};

/** Fixture: moves a message back in time, as if it had been sent `minutes` ago. */
async function ageMessage(id: string, minutes: number): Promise<void> {
  await server.service.app.database.rows(sql`
    update chat_messages set created_at = now() - make_interval(mins => ${minutes}) where id = ${id}`);
}

describe('PATCH /chat/messages/:id', () => {
  let roomId: string;
  beforeAll(async () => {
    roomId = await newRoom(alice, [bob]);
  });

  it('should fail with 401 without a token', async () => {
    const m = await send(alice, roomId, 'x');
    expectErrorEnvelope(await edit(new ApiClient(server.url), m._id, { msg: 'y' }), 401);
  });

  it.each([
    ['no msg', {}],
    ['msg not a string', { msg: 5 }],
    ['msg over 4000 characters', { msg: 'x'.repeat(4001) }],
    ['an unknown field', { msg: 'y', roomId: 'r' }],
  ])('should fail with 400 with %s', async (_case, body) => {
    const m = await send(alice, roomId, 'original');
    expectErrorEnvelope(await edit(alice, m._id, body), 400);
  });

  it('should fail with 404 for an unknown or malformed message id', async () => {
    expectErrorEnvelope(await edit(alice, randomUUID(), { msg: 'y' }), 404, 'chat.error.message_not_found');
    expectErrorEnvelope(await edit(alice, 'not-an-id', { msg: 'y' }), 404, 'chat.error.message_not_found');
  });

  it('should fail with 403 not_member for someone outside the room', async () => {
    const m = await send(alice, roomId, 'mine');
    expectErrorEnvelope(await edit(carol, m._id, { msg: 'hijack' }), 403, 'chat.error.not_member');
  });

  it('should fail with 403 not_sender for another member', async () => {
    const m = await send(alice, roomId, 'mine');
    expectErrorEnvelope(await edit(bob, m._id, { msg: 'yours now' }), 403, 'chat.error.not_sender');
  });

  it('should fail with 403 edit_window_closed 15 minutes after sending', async () => {
    const m = await send(alice, roomId, 'old news');
    await ageMessage(m._id, 16);
    expectErrorEnvelope(await edit(alice, m._id, { msg: 'too late' }), 403, 'chat.error.edit_window_closed');
    await ageMessage(m._id, 14);
    expect((await edit(alice, m._id, { msg: 'just in time' })).status).toBe(200);
  });

  it('should fail with 400 empty_message when emptying a text-only message', async () => {
    const m = await send(alice, roomId, 'text');
    expectErrorEnvelope(await edit(alice, m._id, { msg: '   ' }), 400, 'chat.error.empty_message');
  });

  it('should store the new text with editedAt and show it in the history', async () => {
    const m = await send(alice, roomId, 'first draft');
    expect(m.editedAt).toBeNull();
    const res = await edit(alice, m._id, { msg: ' second draft ' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ _id: m._id, roomId, msg: 'second draft', createdAt: m.createdAt, sender: { userId: alice.userId } });
    expect(new Date(res.body.data.editedAt).toISOString()).toBe(res.body.data.editedAt);
    const listed = (await history(bob, roomId)).messages.find((x: any) => x._id === m._id);
    expect(listed).toEqual(res.body.data);
  });
});

describe('DELETE /chat/messages/:id', () => {
  let roomId: string;
  beforeAll(async () => {
    roomId = await newRoom(alice, [bob]);
  });

  it('should fail with 401 without a token', async () => {
    const m = await send(alice, roomId, 'x');
    expectErrorEnvelope(await remove(new ApiClient(server.url), m._id), 401);
  });

  it('should fail with 404 for an unknown message', async () => {
    expectErrorEnvelope(await remove(alice, randomUUID()), 404, 'chat.error.message_not_found');
  });

  it('should fail with 403 for a non-member and for a member who did not send it', async () => {
    const m = await send(alice, roomId, 'keep');
    expectErrorEnvelope(await remove(carol, m._id), 403, 'chat.error.not_member');
    expectErrorEnvelope(await remove(bob, m._id), 403, 'chat.error.not_sender');
  });

  it('should leave a tombstone in the history, and refuse a second delete, an edit and a reaction', async () => {
    const before = await send(bob, roomId, 'before');
    const m = await send(alice, roomId, 'regret');
    expect((await react(bob, m._id, { emoji: '👍' })).status).toBe(200);
    const res = await remove(alice, m._id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ roomId, _id: m._id });
    const { messages } = await history(bob, roomId);
    expect(messages.find((x: any) => x._id === m._id)).toEqual({ _id: m._id, roomId, deleted: true, createdAt: m.createdAt });
    expect(messages.find((x: any) => x._id === before._id)).toMatchObject({ msg: 'before' });
    expectErrorEnvelope(await remove(alice, m._id), 404, 'chat.error.message_not_found');
    expectErrorEnvelope(await edit(alice, m._id, { msg: 'undo' }), 404, 'chat.error.message_not_found');
    expectErrorEnvelope(await react(bob, m._id, { emoji: '👍' }), 404, 'chat.error.message_not_found');
  });
});

describe('message reactions', () => {
  let roomId: string;
  beforeAll(async () => {
    roomId = await newRoom(alice, [bob]);
  });

  it('should fail with 401 without a token', async () => {
    const m = await send(alice, roomId, 'x');
    expectErrorEnvelope(await new ApiClient(server.url).post(`${CHAT}/messages/${m._id}/reactions`, { emoji: '👍' }), 401);
  });

  it.each([
    ['no emoji', {}],
    ['emoji not a string', { emoji: 1 }],
    ['a sentence', { emoji: 'I like it' }],
    ['an emoji string over 32 characters', { emoji: '👍'.repeat(40) }],
  ])('should fail with 400 with %s', async (_case, body) => {
    const m = await send(alice, roomId, 'x');
    expectErrorEnvelope(await react(bob, m._id, body), 400);
    expectErrorEnvelope(await unreact(bob, m._id, body), 400);
  });

  it('should fail with 403 for a non-member and 404 for an unknown message', async () => {
    const m = await send(alice, roomId, 'x');
    expectErrorEnvelope(await react(carol, m._id, { emoji: '👍' }), 403, 'chat.error.not_member');
    expectErrorEnvelope(await unreact(carol, m._id, { emoji: '👍' }), 403, 'chat.error.not_member');
    expectErrorEnvelope(await react(bob, randomUUID(), { emoji: '👍' }), 404, 'chat.error.message_not_found');
  });

  it('should keep one reaction per user per emoji, grouped by emoji, and remove it again', async () => {
    const m = await send(alice, roomId, 'nice flat');
    const first = await react(bob, m._id, { emoji: '👍' });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ roomId, _id: m._id, reactions: [{ emoji: '👍', count: 1, userIds: [bob.userId] }] });
    expect((await react(bob, m._id, { emoji: '👍' })).body.data.reactions).toEqual([{ emoji: '👍', count: 1, userIds: [bob.userId] }]);
    await react(alice, m._id, { emoji: '👍' });
    const both = await react(bob, m._id, { emoji: 'heart' });
    expect(both.body.data.reactions).toEqual([
      { emoji: '👍', count: 2, userIds: [bob.userId, alice.userId] },
      { emoji: 'heart', count: 1, userIds: [bob.userId] },
    ]);
    expect((await history(alice, roomId)).messages.find((x: any) => x._id === m._id).reactions).toEqual(both.body.data.reactions);
    const removed = await unreact(bob, m._id, { emoji: '👍' });
    expect(removed.status).toBe(200);
    expect(removed.body.data.reactions).toEqual([
      { emoji: '👍', count: 1, userIds: [alice.userId] },
      { emoji: 'heart', count: 1, userIds: [bob.userId] },
    ]);
    expect((await unreact(bob, m._id, { emoji: '👍' })).body.data.reactions).toHaveLength(2);
  });

  it('should fail with 409 past 20 different emojis on one message', async () => {
    const m = await send(alice, roomId, 'popular');
    for (let i = 0; i < 20; i++) expect((await react(bob, m._id, { emoji: `e${i}` })).status).toBe(200);
    expectErrorEnvelope(await react(alice, m._id, { emoji: 'e20' }), 409, 'chat.error.too_many_reactions');
    expect((await react(alice, m._id, { emoji: 'e3' })).status).toBe(200);
  });
});

describe('read positions and unread counts', () => {
  it('should count unread messages of others and lower the count as the member reads', async () => {
    const roomId = await newRoom(alice, [bob]);
    const m1 = await send(bob, roomId, 'one');
    const m2 = await send(bob, roomId, 'two');
    const m3 = await send(bob, roomId, 'three');
    const listed = (await roomsOf(alice)).rooms.find((r: any) => r.roomId === roomId);
    expect(listed.unread_count).toBe(3);
    expect(listed.last_message).toMatchObject({ _id: m3._id, msg: 'three' });
    expect((await roomsOf(bob)).rooms.find((r: any) => r.roomId === roomId).unread_count).toBe(0);

    const read = await alice.api.post(`${CHAT}/rooms/${roomId}/read`, { messageId: m2._id });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ roomId, userId: alice.userId, messageId: m2._id });
    expect(new Date(read.body.data.read_at).toISOString()).toBe(read.body.data.read_at);
    expect((await roomsOf(alice)).rooms.find((r: any) => r.roomId === roomId).unread_count).toBe(1);

    // Never backwards: reading an older message keeps the position.
    const older = await alice.api.post(`${CHAT}/rooms/${roomId}/read`, { messageId: m1._id });
    expect(older.status).toBe(200);
    expect(older.body.data).toEqual(read.body.data);

    await alice.api.post(`${CHAT}/rooms/${roomId}/read`, { messageId: m3._id });
    expect((await roomsOf(alice)).rooms.find((r: any) => r.roomId === roomId).unread_count).toBe(0);

    // One's own message is read; a deleted one is not unread.
    await send(alice, roomId, 'reply');
    const gone = await send(bob, roomId, 'oops');
    await send(bob, roomId, 'four');
    expect((await remove(bob, gone._id)).status).toBe(200);
    const after = (await roomsOf(alice)).rooms.find((r: any) => r.roomId === roomId);
    expect(after.unread_count).toBe(1);
    expect(after.last_message).toMatchObject({ msg: 'four' });
    // Bob's own messages moved his position past Alice's reply.
    expect((await roomsOf(bob)).rooms.find((r: any) => r.roomId === roomId).unread_count).toBe(0);
  });

  it('should count at most 100 unread messages', async () => {
    const roomId = await newRoom(alice, [bob]);
    await server.service.app.database.rows(sql`
      insert into chat_messages (id, room_id, sender_id, msg, created_at)
      select gen_random_uuid(), ${roomId}, ${bob.userId}, 'bulk ' || g, now() + g * interval '1 millisecond'
      from generate_series(1, 105) g`);
    expect((await roomsOf(alice)).rooms.find((r: any) => r.roomId === roomId).unread_count).toBe(100);
  });

  it('should refuse a non-member (403), an unknown room (404), a message of another room (404) and bad bodies (400)', async () => {
    const roomId = await newRoom(alice, [bob]);
    const otherRoom = await newRoom(alice, [carol]);
    const m = await send(alice, roomId, 'hi');
    const elsewhere = await send(alice, otherRoom, 'elsewhere');
    expectErrorEnvelope(await carol.api.post(`${CHAT}/rooms/${roomId}/read`, { messageId: m._id }), 403, 'chat.error.not_member');
    expectErrorEnvelope(await alice.api.post(`${CHAT}/rooms/${randomUUID()}/read`, { messageId: m._id }), 404, 'chat.error.room_not_found');
    const wrong = expectErrorEnvelope(await bob.api.post(`${CHAT}/rooms/${roomId}/read`, { messageId: elsewhere._id }), 404, 'chat.error.message_not_found');
    expect(wrong.details?.field).toBe('messageId');
    expectErrorEnvelope(await bob.api.post(`${CHAT}/rooms/${roomId}/read`, {}), 400);
    expectErrorEnvelope(await bob.api.post(`${CHAT}/rooms/${roomId}/read`, { messageId: 7 }), 400);
    expectErrorEnvelope(await new ApiClient(server.url).post(`${CHAT}/rooms/${roomId}/read`, { messageId: m._id }), 401);
  });
});

describe('GET /chat/rooms (ordered by activity, paged)', () => {
  it('should list rooms by latest activity with cursor paging, keeping the room fields', async () => {
    const user = await registerAndLogin(server, { given_name: 'Dana' });
    const empty = await newRoom(user, [alice], 'empty');
    const older = await newRoom(user, [bob], 'older');
    const newer = await newRoom(user, [carol], 'newer');
    await send(carol, newer, 'n1');
    await send(bob, older, 'o1');

    const first = await roomsOf(user, '?limit=2');
    expect(first.rooms.map((r: any) => r.roomId)).toEqual([older, newer]);
    expect(first.hasMore).toBe(true);
    expect(first.rooms[0]).toMatchObject({ name: 'older', direct: false, unread_count: 1, last_message: { msg: 'o1', sender: { userId: bob.userId } } });
    expect(first.rooms[0].members.map((m: any) => m.userId).sort()).toEqual([user.userId, bob.userId].sort());
    expect(typeof first.rooms[0].createdAt).toBe('string');
    expect(typeof first.rooms[0].lastMessageAt).toBe('string');

    const second = await roomsOf(user, `?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`);
    expect(second.rooms.map((r: any) => r.roomId)).toEqual([empty]);
    expect(second.rooms[0]).toMatchObject({ unread_count: 0, last_message: null, lastMessageAt: null });
    expect(second.hasMore).toBe(false);
    expect(second.nextCursor).toBeNull();

    // Without a limit: every room (up to 100), as before paging existed.
    expect((await roomsOf(user)).rooms).toHaveLength(3);
  });

  it.each([['limit=0'], ['limit=101'], ['limit=abc'], ['cursor=%%%'], ['unknown=1']])('should fail with 400 with %s', async (query) => {
    expectErrorEnvelope(await alice.api.get(`${CHAT}/rooms?${query}`), 400);
  });
});

describe('GET /chat/rooms/:roomId/messages?after=', () => {
  it('should list what came after a message, oldest first, tombstones included', async () => {
    const roomId = await newRoom(alice, [bob]);
    const seen = await send(alice, roomId, 'seen');
    const a = await send(bob, roomId, 'a');
    const b = await send(alice, roomId, 'b');
    const c = await send(bob, roomId, 'c');
    expect((await remove(alice, b._id)).status).toBe(200);

    const page = await history(bob, roomId, `?after=${seen._id}&limit=2`);
    expect(page.messages.map((m: any) => m._id)).toEqual([a._id, b._id]);
    expect(page.messages[1]).toEqual({ _id: b._id, roomId, deleted: true, createdAt: b.createdAt });
    expect(page.hasMore).toBe(true);
    const rest = await history(bob, roomId, `?after=${b._id}&limit=2`);
    expect(rest.messages.map((m: any) => m.msg)).toEqual(['c']);
    expect(rest.hasMore).toBe(false);
    expect((await history(bob, roomId, `?after=${c._id}`)).messages).toEqual([]);
  });

  it('should refuse an unknown message, one of another room, after with cursor, and non-members', async () => {
    const roomId = await newRoom(alice, [bob]);
    const other = await newRoom(alice, [carol]);
    const m = await send(alice, roomId, 'm');
    const elsewhere = await send(alice, other, 'x');
    expectErrorEnvelope(await bob.api.get(`${CHAT}/rooms/${roomId}/messages?after=${randomUUID()}`), 404, 'chat.error.message_not_found');
    expectErrorEnvelope(await bob.api.get(`${CHAT}/rooms/${roomId}/messages?after=${elsewhere._id}`), 404, 'chat.error.message_not_found');
    const first = await history(alice, roomId, '?limit=1');
    expect(first.messages).toHaveLength(1);
    expectErrorEnvelope(await bob.api.get(`${CHAT}/rooms/${roomId}/messages?after=${m._id}&cursor=abc`), 400);
    expectErrorEnvelope(await carol.api.get(`${CHAT}/rooms/${roomId}/messages?after=${m._id}`), 403, 'chat.error.not_member');
  });
});

describe.each(['websocket', 'polling'] as Transport[])('pushes on /chat over %s', (transport) => {
  it('should push message:updated, message:reaction, message:deleted and read to the room', async () => {
    const roomId = await newRoom(alice, [bob, carol]);
    const bobSocket = await connect(server.url, '/chat', bob.token, transport);
    const carolSocket = await connect(server.url, '/chat', carol.token, transport);
    const m = await send(alice, roomId, `draft ${transport}`);

    const updated = nextEvent(bobSocket, 'message:updated', (x: any) => x._id === m._id);
    const edited = await edit(alice, m._id, { msg: `final ${transport}` });
    expect(await updated).toEqual(edited.body.data);

    const reacted = nextEvent(carolSocket, 'message:reaction', (x: any) => x._id === m._id);
    const reaction = await react(bob, m._id, { emoji: '🏠' });
    expect(await reacted).toEqual({ roomId, _id: m._id, reactions: [{ emoji: '🏠', count: 1, userIds: [bob.userId] }] });
    expect(reaction.body.data).toEqual(await reacted);

    const unreacted = nextEvent(carolSocket, 'message:reaction', (x: any) => x._id === m._id && x.reactions.length === 0);
    expect((await unreact(bob, m._id, { emoji: '🏠' })).status).toBe(200);
    await unreacted;

    // read: to the other members, by REST and by the socket event.
    const readByRest = nextEvent(bobSocket, 'read', (x: any) => x.roomId === roomId && x.userId === carol.userId);
    const stored = await carol.api.post(`${CHAT}/rooms/${roomId}/read`, { messageId: m._id });
    expect(await readByRest).toEqual(stored.body.data);
    const m2 = await send(alice, roomId, 'next');
    const readBySocket = nextEvent(carolSocket, 'read', (x: any) => x.userId === bob.userId && x.messageId === m2._id);
    const ack = await emitAck(bobSocket, 'room:read', { roomId, messageId: m2._id });
    expect(ack).toMatchObject({ ok: true, data: { roomId, userId: bob.userId, messageId: m2._id } });
    expect(await readBySocket).toEqual(ack.data);

    const deleted = nextEvent(bobSocket, 'message:deleted', (x: any) => x._id === m._id);
    expect((await remove(alice, m._id)).status).toBe(200);
    expect(await deleted).toEqual({ roomId, _id: m._id });
  });

  it('should answer room:read refusals in the ack', async () => {
    const roomId = await newRoom(alice, [bob]);
    const m = await send(alice, roomId, 'x');
    const carolSocket = await connect(server.url, '/chat', carol.token, transport);
    expect(await emitAck(carolSocket, 'room:read', { roomId, messageId: m._id })).toMatchObject({ ok: false, error_code: 'chat.error.not_member' });
    expect(await emitAck(carolSocket, 'room:read', { roomId })).toMatchObject({ ok: false, error_code: expect.stringMatching(/^validation\.error\./) });
    expect(await emitAck(carolSocket, 'room:read', { roomId: randomUUID(), messageId: m._id })).toMatchObject({
      ok: false,
      error_code: 'chat.error.room_not_found',
    });
  });
});
