// An item that is not published (processing, or failed) takes comments and reactions from its
// uploader and administrators only, as its detail shows it (CONTRACT §19): anyone else, signed in
// or not, gets the 404 of an item that does not exist, and nothing is stored or listed. Once the
// item is published everyone may comment and read the comments.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, loginAdmin, registerAndLogin, type ApiResponse, type TestUser } from '../helpers/api.js';
import { closeAll, connect, emitAck } from '../realtime/socket-client.js';
import { markPublished } from './fixtures.js';
import { announceContentChanged } from '../helpers/behind-the-service.js';

const SNS = '/sns/api/v1';

let server: TestServer;
let owner: TestUser;
let stranger: TestUser;
let admin: TestUser;
let anonymous: ApiClient;

const booted = useTestServer();
beforeAll(async () => {
  server = booted.current;
  [owner, stranger, admin] = await Promise.all([registerAndLogin(server), registerAndLogin(server), loginAdmin(server)]);
  anonymous = new ApiClient(server.url);
});
afterEach(() => closeAll());

function expectError(res: ApiResponse, status: number, code: string) {
  expect(expectErrorEnvelope(res, status).error_code).toBe(code);
}

/** A fresh item as the API leaves it before its video is processed: `processing`. */
async function unpublishedItem(): Promise<string> {
  const res = await owner.api.post('/content/api/v1/content', {
    price: 1_800_000_000,
    unit_price: 'VND',
    area: 55,
    unit_area: 'm2',
    content_info: [{ lang: 'en', project_name: 'Not yet published', description: 'Video still processing' }],
  });
  expect(res.status).toBe(201);
  expect(res.body.data.status).toBe('processing');
  return res.body.data.id;
}

const commentsOn = async (contentId: string) =>
  (
    await server.service.app.database.rows<{ author_id: string; msg: string }>(sql`
    select author_id, msg from comments where content_id = ${contentId} order by created_at`)
  ).map((r) => `${r.author_id === owner.userId ? 'owner' : r.author_id === admin.userId ? 'admin' : 'other'}: ${r.msg}`);

describe('comments on an item that is not published', () => {
  let contentId: string;
  let ownerComment: string;

  beforeAll(async () => {
    contentId = await unpublishedItem();
    const res = await owner.api.post(`${SNS}/comments`, { contentId, msg: 'Owner note' });
    expect(res.status).toBe(201);
    ownerComment = res.body.data._id;
  });

  it('should fail with 404 on its detail for another user (what comments follow)', async () => {
    expectError(await stranger.api.get(`/api/v1/content/${contentId}`), 404, 'content.error.not_found');
  });

  it("should fail with 404 content_not_found on another user's comment", async () => {
    expectError(await stranger.api.post(`${SNS}/comments`, { contentId, msg: 'Sneaky' }), 404, 'comments.error.content_not_found');
  });

  it("should fail with 404 content_not_found on another user's reply", async () => {
    expectError(
      await stranger.api.post(`${SNS}/comments`, { contentId, msg: 'Sneaky reply', parentId: ownerComment }),
      404,
      'comments.error.content_not_found',
    );
  });

  it('should fail with 404 comment_not_found naming parentId when another user replies to its comment from their own item', async () => {
    // Its comments do not exist for them: "no such comment", not "another item's comment".
    const theirs = await stranger.api.post('/content/api/v1/content', {
      price: 900_000_000,
      unit_price: 'VND',
      area: 40,
      unit_area: 'm2',
      content_info: [{ lang: 'en', project_name: 'Theirs' }],
    });
    await markPublished(server, theirs.body.data.id);
    const res = await stranger.api.post(`${SNS}/comments`, { contentId: theirs.body.data.id, msg: 'Reply', parentId: ownerComment });
    expectError(res, 404, 'comments.error.comment_not_found');
    expect(expectErrorEnvelope(res, 404).details?.field).toBe('parentId');
  });

  it('should store no comment of another user', async () => {
    expect(await commentsOn(contentId)).toEqual(['owner: Owner note']);
  });

  it('should fail with 404 listing its comments anonymously', async () => {
    expectError(await anonymous.get(`${SNS}/comments/${contentId}`), 404, 'comments.error.content_not_found');
  });

  it('should fail with 404 listing its comments as another user', async () => {
    expectError(await stranger.api.get(`${SNS}/comments/${contentId}`), 404, 'comments.error.content_not_found');
  });

  it('should fail with 404 listing the replies of its comment anonymously', async () => {
    expectError(await anonymous.get(`${SNS}/comments/${ownerComment}/replies`), 404, 'comments.error.comment_not_found');
  });

  it('should fail with 404 listing the replies of its comment as another user', async () => {
    expectError(await stranger.api.get(`${SNS}/comments/${ownerComment}/replies`), 404, 'comments.error.comment_not_found');
  });

  it("should fail with 404 on another user's reaction to the item", async () => {
    expectError(await stranger.api.post(`/api/v1/content/${contentId}/reactions`), 404, 'content.error.not_found');
  });

  it('should fail with 404 on another user removing a reaction from the item', async () => {
    expectError(await stranger.api.delete(`/api/v1/content/${contentId}/reactions`), 404, 'content.error.not_found');
  });

  it("should fail with 404 on another user's reaction to its comment", async () => {
    expectError(await stranger.api.post(`${SNS}/comments/${ownerComment}/reactions`, { emoji: '👍' }), 404, 'comments.error.comment_not_found');
  });

  it('should fail with 404 on another user removing a reaction from its comment', async () => {
    expectError(await stranger.api.delete(`${SNS}/comments/${ownerComment}/reactions`), 404, 'comments.error.comment_not_found');
  });

  it('should store no reaction of another user', async () => {
    const [row] = await server.service.app.database.rows<{ reaction_count: number; comment_reactions: number }>(sql`
      select reaction_count, (select count(*)::int from comment_reactions where comment_id = ${ownerComment}) as comment_reactions
      from contents where id = ${contentId}`);
    expect(row).toEqual({ reaction_count: 0, comment_reactions: 0 });
  });

  it('should fail with content_not_found when another user subscribes to its comments over the socket', async () => {
    const socket = await connect(server.url, '/comments', stranger.token, 'websocket');
    expect(await emitAck(socket, 'content:subscribe', { contentId })).toMatchObject({ ok: false, error_code: 'comments.error.content_not_found' });
  });

  it('should let its owner subscribe to its comments over the socket', async () => {
    const mine = await connect(server.url, '/comments', owner.token, 'websocket');
    expect(await emitAck(mine, 'content:subscribe', { contentId })).toEqual({ ok: true });
  });

  it('should take a reply from its owner', async () => {
    const reply = await owner.api.post(`${SNS}/comments`, { contentId, msg: 'Owner reply', parentId: ownerComment });
    expect(reply.status).toBe(201);
    expect(reply.body.data).toMatchObject({ contentId, parentId: ownerComment, msg: 'Owner reply' });
  });

  it('should take a comment from an administrator', async () => {
    const byAdmin = await admin.api.post(`${SNS}/comments`, { contentId, msg: 'Admin check' });
    expect(byAdmin.status).toBe(201);
  });

  it('should list its comments to its owner and an administrator', async () => {
    const list = await owner.api.get(`${SNS}/comments/${contentId}`);
    expect(list.status).toBe(200);
    expect(list.body.data.comments.map((c: any) => c.msg)).toEqual(['Admin check', 'Owner note']);
    const adminList = await admin.api.get(`${SNS}/comments/${contentId}`);
    expect(adminList.status).toBe(200);
    expect(adminList.body.data.comments).toHaveLength(2);
  });

  it('should list the replies of its comment to its owner', async () => {
    const replies = await owner.api.get(`${SNS}/comments/${ownerComment}/replies`);
    expect(replies.status).toBe(200);
    expect(replies.body.data.comments.map((c: any) => c.msg)).toEqual(['Owner reply']);
  });

  it("should take its owner's reaction to the item", async () => {
    const liked = await owner.api.post(`/api/v1/content/${contentId}/reactions`);
    expect(liked.status).toBe(200);
    expect(liked.body.data).toEqual({ reacted: true, reaction_count: 1 });
  });

  it("should take its owner's reaction to a comment", async () => {
    const emoji = await owner.api.post(`${SNS}/comments/${ownerComment}/reactions`, { emoji: '❤️' });
    expect(emoji.status).toBe(200);
    expect(emoji.body.data.reactions).toEqual([{ author: { userId: owner.userId, name: expect.any(String) }, emoji: '❤️' }]);
  });

  it('should store the comments of its owner and the administrator', async () => {
    expect(await commentsOn(contentId)).toEqual(['owner: Owner note', 'owner: Owner reply', 'admin: Admin check']);
  });

  it('should open to everyone once published', async () => {
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
  let contentId: string;
  beforeAll(async () => {
    contentId = await unpublishedItem();
    await server.service.app.database.rows(sql`
      update contents set status = 'failed', video = video || '{"status": "failed"}'::jsonb where id = ${contentId}`);
    await announceContentChanged(server, contentId);
  });

  it("should fail with 404 on another user's comment", async () => {
    expectError(await stranger.api.post(`${SNS}/comments`, { contentId, msg: 'Hello?' }), 404, 'comments.error.content_not_found');
  });

  it('should fail with 404 listing its comments anonymously', async () => {
    expectError(await anonymous.get(`${SNS}/comments/${contentId}`), 404, 'comments.error.content_not_found');
  });

  it("should fail with 404 on another user's reaction", async () => {
    expectError(await stranger.api.post(`/api/v1/content/${contentId}/reactions`), 404, 'content.error.not_found');
  });

  it("should take its owner's comment", async () => {
    const own = await owner.api.post(`${SNS}/comments`, { contentId, msg: 'Re-uploading soon' });
    expect(own.status).toBe(201);
    expect(await commentsOn(contentId)).toEqual(['owner: Re-uploading soon']);
  });
});
