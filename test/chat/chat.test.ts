// Chat over the real server: rooms (direct room reuse), messages (text and attachments),
// history paging; 401/403/404 and bad input (empty, huge, wrong types, another room's id).
import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';

const BASE = '/sns/api/v1';

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let roomId: string;

const attachment = { type: 'image', fileName: 'plan.png', url: 'https://cdn.example.com/plan.png', fileSize: 2048 };

const booted = useTestServer();
beforeAll(async () => {
  server = booted.current;
  alice = await registerAndLogin(server, { given_name: 'Alice', family_name: 'Nguyen' });
  bob = await registerAndLogin(server, { given_name: 'Bob', family_name: 'Tran' });
  carol = await registerAndLogin(server, { given_name: 'Carol', family_name: 'Le' });
  const res = await alice.api.post(`${BASE}/chat/rooms`, { memberIds: [bob.userId], name: 'Viewing' });
  roomId = res.body.data.roomId;
});

const send = (user: TestUser, body: unknown) => user.api.post(`${BASE}/chat/messages`, body);

describe('chat rooms', () => {
  it('should fail with 401 creating a room without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).post(`${BASE}/chat/rooms`, { memberIds: [bob.userId] }), 401);
  });

  it('should fail with 401 listing rooms without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).get(`${BASE}/chat/rooms`), 401);
  });

  it('should fail with 404 for a member who does not exist', async () => {
    expectErrorEnvelope(await alice.api.post(`${BASE}/chat/rooms`, { memberIds: [randomUUID()] }), 404, 'chat.error.user_not_found');
  });

  it('should fail with 404 for a member id that is not a user id', async () => {
    expectErrorEnvelope(await alice.api.post(`${BASE}/chat/rooms`, { memberIds: ['someone'] }), 404);
  });

  // Bodies are built inside the test: member ids are only known once the users exist.
  it.each([
    ['no members', () => ({ memberIds: [] })],
    ['memberIds not an array', () => ({ memberIds: bob.userId })],
    ['a name over 100 characters', () => ({ memberIds: [bob.userId], name: 'x'.repeat(101) })],
    ['no memberIds', () => ({})],
  ])('should fail with 400 with %s', async (_case, body) => {
    expectErrorEnvelope(await alice.api.post(`${BASE}/chat/rooms`, body()), 400);
  });

  it('should create a room with the caller as a member', async () => {
    const res = await alice.api.post(`${BASE}/chat/rooms`, { memberIds: [bob.userId, carol.userId, bob.userId], name: ' Team ' });
    expect(res.status).toBe(201);
    const room = res.body.data;
    expect(room).toMatchObject({ name: 'Team', direct: false });
    expect(typeof room.roomId).toBe('string');
    expect(new Date(room.createdAt).toISOString()).toBe(room.createdAt);
    expect(room.members.map((m: any) => m.userId).sort()).toEqual([alice.userId, bob.userId, carol.userId].sort());
    expect(room.members.find((m: any) => m.userId === bob.userId)).toMatchObject({ name: 'Bob Tran' });
  });

  it('should reuse the direct room between the same two people', async () => {
    const first = await bob.api.post(`${BASE}/chat/rooms`, { memberIds: [carol.userId] });
    expect(first.status).toBe(201);
    expect(first.body.data.direct).toBe(true);
    const again = await carol.api.post(`${BASE}/chat/rooms`, { memberIds: [bob.userId] });
    expect(again.status).toBe(200);
    expect(again.body.data.roomId).toBe(first.body.data.roomId);
  });

  it("should list only the caller's rooms", async () => {
    const res = await carol.api.get(`${BASE}/chat/rooms`);
    expect(res.status).toBe(200);
    const ids = res.body.data.rooms.map((r: any) => r.roomId);
    expect(ids).not.toContain(roomId);
    expect((await bob.api.get(`${BASE}/chat/rooms`)).body.data.rooms.map((r: any) => r.roomId)).toContain(roomId);
  });
});

describe('POST /chat/messages', () => {
  it('should fail with 401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).post(`${BASE}/chat/messages`, { roomId, msg: 'hi' }), 401);
  });

  it('should fail with 403 for a non-member, even with another room id', async () => {
    expectErrorEnvelope(await send(carol, { roomId, msg: 'let me in' }), 403, 'chat.error.not_member');
  });

  it('should fail with 404 for an unknown room', async () => {
    expectErrorEnvelope(await send(alice, { roomId: randomUUID(), msg: 'hi' }), 404, 'chat.error.room_not_found');
  });

  it('should fail with 404 for a room id that is not a room id', async () => {
    expectErrorEnvelope(await send(alice, { roomId: 'general', msg: 'hi' }), 404);
  });

  it('should fail with 400 empty_message with neither text nor attachments', async () => {
    expectErrorEnvelope(await send(alice, { roomId }), 400, 'chat.error.empty_message');
  });

  it.each([
    ['blank text', { msg: '   ' }],
    ['empty text and no attachments', { msg: '', attachments: [] }],
    ['text over 4000 characters', { msg: 'x'.repeat(4001) }],
    ['text that is not a string', { msg: 123 }],
    ['a roomId that is not a string', { roomId: 5, msg: 'hi' }],
    ['no roomId', { roomId: undefined, msg: 'hi' }],
    ['attachments that are not an array', { attachments: 'file' }],
    ['more than 10 attachments', { attachments: Array(11).fill(attachment) }],
    ['an attachment with a javascript: url', { attachments: [{ ...attachment, url: 'javascript:alert(1)' }] }],
    ['an attachment fileSize that is not a number', { attachments: [{ ...attachment, fileSize: '12' }] }],
    ['an unknown attachment type', { attachments: [{ ...attachment, type: 'spreadsheet' }] }],
    ['an attachment with only a type', { attachments: [{ type: 'image' }] }],
  ])('should fail with 400 with %s', async (_case, fields: Record<string, unknown>) => {
    expectErrorEnvelope(await send(alice, { roomId, ...fields }), 400);
  });

  it('should fail with 413 for a body over the size limit', async () => {
    const res = await send(alice, { roomId, msg: 'x'.repeat(2 * 1024 * 1024) });
    expectErrorEnvelope(res, 413);
  });

  it('should store a text message with the SPEC 2.9 shape', async () => {
    const res = await send(bob, { roomId, msg: ' Hello ' });
    expect(res.status).toBe(201);
    const m = res.body.data;
    expect(m).toMatchObject({ roomId, msg: 'Hello', sender: { userId: bob.userId, name: 'Bob Tran' }, attachments: [], reactions: [] });
    expect(typeof m._id).toBe('string');
    expect('picture' in m.sender).toBe(true);
    expect(new Date(m.createdAt).toISOString()).toBe(m.createdAt);
  });

  it('should carry attachments as {type, fileName, url, downloadable}', async () => {
    const res = await send(alice, { roomId, attachments: [attachment] });
    expect(res.status).toBe(201);
    expect(res.body.data.msg).toBe('');
    expect(res.body.data.attachments).toEqual([{ type: 'image', fileName: 'plan.png', url: attachment.url, downloadable: true }]);
  });
});

describe('GET /chat/rooms/:roomId/messages', () => {
  it('should fail with 401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).get(`${BASE}/chat/rooms/${roomId}/messages`), 401);
  });

  it('should fail with 403 for a non-member', async () => {
    expectErrorEnvelope(await carol.api.get(`${BASE}/chat/rooms/${roomId}/messages`), 403);
  });

  it('should fail with 404 for an unknown room', async () => {
    expectErrorEnvelope(await carol.api.get(`${BASE}/chat/rooms/${randomUUID()}/messages`), 404);
  });

  it('should fail with 400 with a limit over the maximum', async () => {
    expectErrorEnvelope(await alice.api.get(`${BASE}/chat/rooms/${roomId}/messages?limit=500`), 400);
  });

  it('should fail with 400 with a malformed cursor', async () => {
    expectErrorEnvelope(await alice.api.get(`${BASE}/chat/rooms/${roomId}/messages?cursor=%%%`), 400);
  });

  it('should page newest first for members', async () => {
    const { body } = await alice.api.post(`${BASE}/chat/rooms`, { memberIds: [carol.userId], name: 'History' });
    const id = body.data.roomId;
    for (let i = 0; i < 5; i++) expect((await send(i % 2 ? alice : carol, { roomId: id, msg: `m${i}` })).status).toBe(201);
    const first = await carol.api.get(`${BASE}/chat/rooms/${id}/messages?limit=3`);
    expect(first.status).toBe(200);
    expect(first.body.data.messages.map((m: any) => m.msg)).toEqual(['m4', 'm3', 'm2']);
    expect(first.body.data.hasMore).toBe(true);
    const second = await carol.api.get(`${BASE}/chat/rooms/${id}/messages?limit=3&cursor=${encodeURIComponent(first.body.data.nextCursor)}`);
    expect(second.body.data.messages.map((m: any) => m.msg)).toEqual(['m1', 'm0']);
    expect(second.body.data.hasMore).toBe(false);
    expect(second.body.data.nextCursor).toBeNull();
  });

  it('should list the most recently active room first', async () => {
    const { body } = await alice.api.post(`${BASE}/chat/rooms`, { memberIds: [carol.userId], name: 'Latest' });
    expect((await send(carol, { roomId: body.data.roomId, msg: 'newest' })).status).toBe(201);
    expect((await carol.api.get(`${BASE}/chat/rooms`)).body.data.rooms[0].roomId).toBe(body.data.roomId);
  });
});
