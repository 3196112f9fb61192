// Chat over the real server: rooms (direct room reuse), messages (text and attachments),
// history paging; 401/403/404 and bad input (empty, huge, wrong types, another room's id).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { bootServer, type TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';

const BASE = '/sns/api/v1';

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let roomId: string;

const attachment = { type: 'image', fileName: 'plan.png', url: 'https://cdn.example.com/plan.png', fileSize: 2048 };

beforeAll(async () => {
  server = await bootServer();
  alice = await registerAndLogin(server, { given_name: 'Alice', family_name: 'Nguyen' });
  bob = await registerAndLogin(server, { given_name: 'Bob', family_name: 'Tran' });
  carol = await registerAndLogin(server, { given_name: 'Carol', family_name: 'Le' });
  const res = await alice.api.post(`${BASE}/chat/rooms`, { memberIds: [bob.userId], name: 'Viewing' });
  roomId = res.body.data.roomId;
});
afterAll(() => server?.close());

const send = (user: TestUser, body: unknown) => user.api.post(`${BASE}/chat/messages`, body);

describe('chat rooms', () => {
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

  it('should refuse unknown members (404) and bad input (400)', async () => {
    expectErrorEnvelope(await alice.api.post(`${BASE}/chat/rooms`, { memberIds: [randomUUID()] }), 404, 'chat.error.user_not_found');
    expectErrorEnvelope(await alice.api.post(`${BASE}/chat/rooms`, { memberIds: ['someone'] }), 404);
    expectErrorEnvelope(await alice.api.post(`${BASE}/chat/rooms`, { memberIds: [] }), 400);
    expectErrorEnvelope(await alice.api.post(`${BASE}/chat/rooms`, { memberIds: bob.userId }), 400);
    expectErrorEnvelope(await alice.api.post(`${BASE}/chat/rooms`, { memberIds: [bob.userId], name: 'x'.repeat(101) }), 400);
    expectErrorEnvelope(await alice.api.post(`${BASE}/chat/rooms`, {}), 400);
    expectErrorEnvelope(await new ApiClient(server.url).post(`${BASE}/chat/rooms`, { memberIds: [bob.userId] }), 401);
  });

  it("should list only the caller's rooms", async () => {
    const res = await carol.api.get(`${BASE}/chat/rooms`);
    expect(res.status).toBe(200);
    const ids = res.body.data.rooms.map((r: any) => r.roomId);
    expect(ids).not.toContain(roomId);
    expect((await bob.api.get(`${BASE}/chat/rooms`)).body.data.rooms.map((r: any) => r.roomId)).toContain(roomId);
    expectErrorEnvelope(await new ApiClient(server.url).get(`${BASE}/chat/rooms`), 401);
  });
});

describe('POST /chat/messages', () => {
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

  it('should fail with 401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).post(`${BASE}/chat/messages`, { roomId, msg: 'hi' }), 401);
  });

  it('should fail with 403 for a non-member, even with another room id', async () => {
    expectErrorEnvelope(await send(carol, { roomId, msg: 'let me in' }), 403, 'chat.error.not_member');
  });

  it('should fail with 404 for an unknown room', async () => {
    expectErrorEnvelope(await send(alice, { roomId: randomUUID(), msg: 'hi' }), 404, 'chat.error.room_not_found');
    expectErrorEnvelope(await send(alice, { roomId: 'general', msg: 'hi' }), 404);
  });

  it('should fail with 400 on empty, huge or wrongly typed messages', async () => {
    expectErrorEnvelope(await send(alice, { roomId }), 400, 'chat.error.empty_message');
    expectErrorEnvelope(await send(alice, { roomId, msg: '   ' }), 400);
    expectErrorEnvelope(await send(alice, { roomId, msg: '', attachments: [] }), 400);
    expectErrorEnvelope(await send(alice, { roomId, msg: 'x'.repeat(4001) }), 400);
    expectErrorEnvelope(await send(alice, { roomId, msg: 123 }), 400);
    expectErrorEnvelope(await send(alice, { roomId: 5, msg: 'hi' }), 400);
    expectErrorEnvelope(await send(alice, { msg: 'hi' }), 400);
    expectErrorEnvelope(await send(alice, { roomId, attachments: 'file' }), 400);
    expectErrorEnvelope(await send(alice, { roomId, attachments: Array(11).fill(attachment) }), 400);
    expectErrorEnvelope(await send(alice, { roomId, attachments: [{ ...attachment, url: 'javascript:alert(1)' }] }), 400);
    expectErrorEnvelope(await send(alice, { roomId, attachments: [{ ...attachment, fileSize: '12' }] }), 400);
    expectErrorEnvelope(await send(alice, { roomId, attachments: [{ ...attachment, type: 'spreadsheet' }] }), 400);
    expectErrorEnvelope(await send(alice, { roomId, attachments: [{ type: 'image' }] }), 400);
  });

  it('should answer 413 for a body over the size limit', async () => {
    const res = await send(alice, { roomId, msg: 'x'.repeat(2 * 1024 * 1024) });
    expectErrorEnvelope(res, 413);
  });
});

describe('GET /chat/rooms/:roomId/messages', () => {
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
    // The room list shows the most recently active room first.
    expect((await carol.api.get(`${BASE}/chat/rooms`)).body.data.rooms[0].roomId).toBe(id);
  });

  it('should refuse non-members (403), unknown rooms (404), anonymous callers (401) and bad paging (400)', async () => {
    expectErrorEnvelope(await carol.api.get(`${BASE}/chat/rooms/${roomId}/messages`), 403);
    expectErrorEnvelope(await carol.api.get(`${BASE}/chat/rooms/${randomUUID()}/messages`), 404);
    expectErrorEnvelope(await new ApiClient(server.url).get(`${BASE}/chat/rooms/${roomId}/messages`), 401);
    expectErrorEnvelope(await alice.api.get(`${BASE}/chat/rooms/${roomId}/messages?limit=500`), 400);
    expectErrorEnvelope(await alice.api.get(`${BASE}/chat/rooms/${roomId}/messages?cursor=%%%`), 400);
  });
});
