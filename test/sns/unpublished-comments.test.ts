// An item that is not published (processing, or failed) takes comments and reactions from its
// uploader and administrators only, as its detail shows it (CONTRACT §19): anyone else, signed in
// or not, gets the 404 of an item that does not exist, and nothing is stored or listed. Once the
// item is published everyone may comment and read the comments.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { bootServer, type TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, loginAdmin, registerAndLogin, type ApiResponse, type TestUser } from '../helpers/api.js';
import { closeAll, connect, emitAck } from '../realtime/socket-client.js';
import { markPublished } from './fixtures.js';

const SNS = '/sns/api/v1';

let server: TestServer;
let owner: TestUser;
let stranger: TestUser;
let admin: TestUser;
let anonymous: ApiClient;

beforeAll(async () => {
  server = await bootServer();
  [owner, stranger, admin] = await Promise.all([registerAndLogin(server), registerAndLogin(server), loginAdmin(server)]);
  anonymous = new ApiClient(server.url);
});
afterAll(() => server?.close());
afterEach(() => closeAll());

function expectError(res: ApiResponse, status: number, code: string) {
  expect(expectErrorEnvelope(res, status).error_code).toBe(code);
}

/** A fresh item as the API leaves it before its video is processed: `processing`. */
async function unpublishedItem(): Promise<string> {
  const res = await owner.api.post('/content/api/v1/content', {
    price: 1_800_000_000, unit_price: 'VND', area: 55, unit_area: 'm2',
    content_info: [{ lang: 'en', project_name: 'Not yet published', description: 'Video still processing' }],
  });
  expect(res.status).toBe(201);
  expect(res.body.data.status).toBe('processing');
  return res.body.data.id;
}

const commentsOn = async (contentId: string) =>
  (await server.service.app.database.rows<{ author_id: string; msg: string }>(sql`
    select author_id, msg from comments where content_id = ${contentId} order by created_at`)).map((r) => `${r.author_id === owner.userId ? 'owner' : r.author_id === admin.userId ? 'admin' : 'other'}: ${r.msg}`);

describe('comments on an item that is not published', () => {
  let contentId: string;
  let ownerComment: string;

  beforeAll(async () => {
    contentId = await unpublishedItem();
    const res = await owner.api.post(`${SNS}/comments`, { contentId, msg: 'Owner note' });
    expect(res.status).toBe(201);
    ownerComment = res.body.data._id;
  });

  it('refuses another user\'s comment and reply with 404, storing nothing (as the detail answers 404)', async () => {
    expectError(await stranger.api.get(`/api/v1/content/${contentId}`), 404, 'content.error.not_found');
    expectError(await stranger.api.post(`${SNS}/comments`, { contentId, msg: 'Sneaky' }), 404, 'comments.error.content_not_found');
    expectError(await stranger.api.post(`${SNS}/comments`, { contentId, msg: 'Sneaky reply', parentId: ownerComment }), 404, 'comments.error.content_not_found');
    // Its comments do not exist for them either: naming one as the parent of a reply on their own
    // published item is "no such comment", not "another item's comment".
    const theirs = await stranger.api.post('/content/api/v1/content', {
      price: 900_000_000, unit_price: 'VND', area: 40, unit_area: 'm2', content_info: [{ lang: 'en', project_name: 'Theirs' }],
    });
    await markPublished(server, theirs.body.data.id);
    const res = await stranger.api.post(`${SNS}/comments`, { contentId: theirs.body.data.id, msg: 'Reply', parentId: ownerComment });
    expectError(res, 404, 'comments.error.comment_not_found');
    expect(expectErrorEnvelope(res, 404).details?.field).toBe('parentId');
    expect(await commentsOn(contentId)).toEqual(['owner: Owner note']);
  });

  it('lists nothing to anonymous callers or other users', async () => {
    expectError(await anonymous.get(`${SNS}/comments/${contentId}`), 404, 'comments.error.content_not_found');
    expectError(await stranger.api.get(`${SNS}/comments/${contentId}`), 404, 'comments.error.content_not_found');
    expectError(await anonymous.get(`${SNS}/comments/${ownerComment}/replies`), 404, 'comments.error.comment_not_found');
    expectError(await stranger.api.get(`${SNS}/comments/${ownerComment}/replies`), 404, 'comments.error.comment_not_found');
  });

  it('refuses another user\'s reactions on the item and on its comments with 404', async () => {
    expectError(await stranger.api.post(`/api/v1/content/${contentId}/reactions`), 404, 'content.error.not_found');
    expectError(await stranger.api.delete(`/api/v1/content/${contentId}/reactions`), 404, 'content.error.not_found');
    expectError(await stranger.api.post(`${SNS}/comments/${ownerComment}/reactions`, { emoji: '👍' }), 404, 'comments.error.comment_not_found');
    expectError(await stranger.api.delete(`${SNS}/comments/${ownerComment}/reactions`), 404, 'comments.error.comment_not_found');
    const [row] = await server.service.app.database.rows<{ reaction_count: number; comment_reactions: number }>(sql`
      select reaction_count, (select count(*)::int from comment_reactions where comment_id = ${ownerComment}) as comment_reactions
      from contents where id = ${contentId}`);
    expect(row).toEqual({ reaction_count: 0, comment_reactions: 0 });
  });

  it('does not let another user follow its comments over the socket', async () => {
    const socket = await connect(server.url, '/comments', stranger.token, 'websocket');
    expect(await emitAck(socket, 'content:subscribe', { contentId })).toMatchObject({ ok: false, error_code: 'comments.error.content_not_found' });
    const mine = await connect(server.url, '/comments', owner.token, 'websocket');
    expect(await emitAck(mine, 'content:subscribe', { contentId })).toEqual({ ok: true });
  });

  it('takes comments, replies and reactions from its owner and an administrator', async () => {
    const reply = await owner.api.post(`${SNS}/comments`, { contentId, msg: 'Owner reply', parentId: ownerComment });
    expect(reply.status).toBe(201);
    expect(reply.body.data).toMatchObject({ contentId, parentId: ownerComment, msg: 'Owner reply' });
    const byAdmin = await admin.api.post(`${SNS}/comments`, { contentId, msg: 'Admin check' });
    expect(byAdmin.status).toBe(201);

    const list = await owner.api.get(`${SNS}/comments/${contentId}`);
    expect(list.status).toBe(200);
    expect(list.body.data.comments.map((c: any) => c.msg)).toEqual(['Admin check', 'Owner note']);
    const adminList = await admin.api.get(`${SNS}/comments/${contentId}`);
    expect(adminList.status).toBe(200);
    expect(adminList.body.data.comments).toHaveLength(2);
    const replies = await owner.api.get(`${SNS}/comments/${ownerComment}/replies`);
    expect(replies.status).toBe(200);
    expect(replies.body.data.comments.map((c: any) => c.msg)).toEqual(['Owner reply']);

    const liked = await owner.api.post(`/api/v1/content/${contentId}/reactions`);
    expect(liked.status).toBe(200);
    expect(liked.body.data).toEqual({ reacted: true, reaction_count: 1 });
    const emoji = await owner.api.post(`${SNS}/comments/${ownerComment}/reactions`, { emoji: '❤️' });
    expect(emoji.status).toBe(200);
    expect(emoji.body.data.reactions).toEqual([{ author: { userId: owner.userId, name: expect.any(String) }, emoji: '❤️' }]);
    expect(await commentsOn(contentId)).toEqual(['owner: Owner note', 'owner: Owner reply', 'admin: Admin check']);
  });

  it('opens to everyone once published', async () => {
    await markPublished(server, contentId);
    const listed = await anonymous.get(`${SNS}/comments/${contentId}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.comments.map((c: any) => c.msg)).toEqual(['Admin check', 'Owner note']);
    const res = await stranger.api.post(`${SNS}/comments`, { contentId, msg: 'Now public' });
    expect(res.status).toBe(201);
    expect((await stranger.api.post(`/api/v1/content/${contentId}/reactions`)).status).toBe(200);
    expect((await anonymous.get(`${SNS}/comments/${ownerComment}/replies`)).status).toBe(200);
  });
});

describe('an item whose processing failed', () => {
  it('is closed to other users like one still processing', async () => {
    const contentId = await unpublishedItem();
    await server.service.app.database.rows(sql`
      update contents set status = 'failed', video = video || '{"status": "failed"}'::jsonb where id = ${contentId}`);
    expectError(await stranger.api.post(`${SNS}/comments`, { contentId, msg: 'Hello?' }), 404, 'comments.error.content_not_found');
    expectError(await anonymous.get(`${SNS}/comments/${contentId}`), 404, 'comments.error.content_not_found');
    expectError(await stranger.api.post(`/api/v1/content/${contentId}/reactions`), 404, 'content.error.not_found');
    const own = await owner.api.post(`${SNS}/comments`, { contentId, msg: 'Re-uploading soon' });
    expect(own.status).toBe(201);
    expect(await commentsOn(contentId)).toEqual(['owner: Re-uploading soon']);
  });
});
