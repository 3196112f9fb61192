// Comments over the real server: create (top-level and replies), list with cursor paging,
// replies, reactions; every error status of SPEC §4.5 and bad input.
import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { createContent, softDeleteContent } from './fixtures.js';

const BASE = '/sns/api/v1';

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
let contentId: string;
let otherContentId: string;

const booted = useTestServer();
beforeAll(async () => {
  server = booted.current;
  alice = await registerAndLogin(server, { given_name: 'Alice', family_name: 'Nguyen' });
  bob = await registerAndLogin(server, { given_name: 'Bob', family_name: 'Tran' });
  contentId = await createContent(server, alice);
  otherContentId = await createContent(server, bob);
});

const comment = (user: TestUser, body: unknown) => user.api.post(`${BASE}/comments`, body);

describe('POST /comments', () => {
  it('should fail with 401 without a token', async () => {
    const res = await new ApiClient(server.url).post(`${BASE}/comments`, { contentId, msg: 'hi' });
    expectErrorEnvelope(res, 401);
  });

  // Bodies are built inside the test: the content id is only known once it exists.
  it.each([
    ['no msg', () => ({ contentId })],
    ['no contentId', () => ({ msg: 'hi' })],
    ['a msg that is not a string', () => ({ contentId, msg: 42 })],
    ['a contentId that is not a string', () => ({ contentId: 7, msg: 'hi' })],
    ['a parentId that is not a string', () => ({ contentId, msg: 'hi', parentId: 12 })],
    ['an unknown field', () => ({ contentId, msg: 'hi', extra: true })],
  ])('should fail with 400 with %s', async (_case, body) => {
    expectErrorEnvelope(await comment(bob, body()), 400);
  });

  it('should fail with 400 naming msg on an empty message', async () => {
    const empty = expectErrorEnvelope(await comment(bob, { contentId, msg: '   ' }), 400);
    expect(empty.details?.field).toBe('msg');
  });

  it('should fail with 400 naming msg on a message over 2000 characters', async () => {
    const huge = expectErrorEnvelope(await comment(bob, { contentId, msg: 'x'.repeat(2001) }), 400);
    expect(huge.details?.field).toBe('msg');
  });

  it('should fail with 404 on unknown content', async () => {
    expectErrorEnvelope(await comment(bob, { contentId: randomUUID(), msg: 'hi' }), 404, 'comments.error.content_not_found');
  });

  it('should fail with 404 on a malformed content id', async () => {
    expectErrorEnvelope(await comment(bob, { contentId: 'not-a-content', msg: 'hi' }), 404);
  });

  it('should fail with 404 on deleted content', async () => {
    const doomed = await createContent(server, bob);
    await softDeleteContent(server, doomed);
    expectErrorEnvelope(await comment(bob, { contentId: doomed, msg: 'hi' }), 404);
  });

  it('should fail with 404 on an unknown parent', async () => {
    expectErrorEnvelope(await comment(bob, { contentId, msg: 'hi', parentId: randomUUID() }), 404, 'comments.error.comment_not_found');
  });

  it('should fail with 400 naming parentId on a parent from another content item', async () => {
    const elsewhere = await comment(alice, { contentId: otherContentId, msg: 'elsewhere' });
    expect(elsewhere.status).toBe(201);
    const res = expectErrorEnvelope(await comment(bob, { contentId, msg: 'hi', parentId: elsewhere.body.data._id }), 400, 'comments.error.parent_mismatch');
    expect(res.details?.field).toBe('parentId');
  });

  it('should create a top-level comment with the SPEC 2.8 shape', async () => {
    const res = await comment(bob, { contentId, msg: '  Nice view!  ', parentId: null });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const c = res.body.data;
    expect(c).toMatchObject({
      contentId,
      parentId: null,
      msg: 'Nice view!',
      author: { userId: bob.userId, name: 'Bob Tran' },
      reactions: [],
      replyCount: 0,
    });
    expect(typeof c._id).toBe('string');
    expect('avatarUrl' in c.author).toBe(true);
    expect(new Date(c.createdAt).toISOString()).toBe(c.createdAt);
    expect(new Date(c.updatedAt).toISOString()).toBe(c.updatedAt);
  });

  it('should hang replies under the top-level comment, flattening replies to replies', async () => {
    const top = (await comment(alice, { contentId, msg: 'Top' })).body.data;
    const reply = await comment(bob, { contentId, msg: 'Reply', parentId: top._id });
    expect(reply.status).toBe(201);
    expect(reply.body.data.parentId).toBe(top._id);
    const nested = await comment(alice, { contentId, msg: 'Reply to reply', parentId: reply.body.data._id });
    expect(nested.status).toBe(201);
    expect(nested.body.data.parentId).toBe(top._id);

    const list = await new ApiClient(server.url).get(`${BASE}/comments/${contentId}?limit=100`);
    const listed = list.body.data.comments.find((c: any) => c._id === top._id);
    expect(listed.replyCount).toBe(2);
    expect(list.body.data.comments.every((c: any) => c.parentId === null)).toBe(true);

    const replies = await new ApiClient(server.url).get(`${BASE}/comments/${top._id}/replies`);
    expect(replies.status).toBe(200);
    expect(replies.body.data.comments.map((c: any) => c.msg)).toEqual(['Reply', 'Reply to reply']);
    expect(replies.body.data.hasMore).toBe(false);
  });
});

describe('GET /comments/:contentId', () => {
  it('should fail with 404 on unknown content', async () => {
    expectErrorEnvelope(await bob.api.get(`${BASE}/comments/${randomUUID()}`), 404);
  });

  it('should fail with 404 on a malformed content id', async () => {
    expectErrorEnvelope(await bob.api.get(`${BASE}/comments/nope`), 404);
  });

  it('should fail with 404 on deleted content', async () => {
    const doomed = await createContent(server, alice);
    await softDeleteContent(server, doomed);
    expectErrorEnvelope(await bob.api.get(`${BASE}/comments/${doomed}`), 404);
  });

  it.each(['0', '101', 'abc'])('should fail with 400 with limit=%s', async (limit) => {
    expectErrorEnvelope(await bob.api.get(`${BASE}/comments/${contentId}?limit=${limit}`), 400);
  });

  it('should fail with 400 invalid_cursor with a forged cursor', async () => {
    expectErrorEnvelope(await bob.api.get(`${BASE}/comments/${contentId}?cursor=garbage`), 400, 'validation.error.invalid_cursor');
  });

  it('should fail with 404 for replies of an unknown comment', async () => {
    expectErrorEnvelope(await bob.api.get(`${BASE}/comments/${randomUUID()}/replies`), 404);
  });

  it('should page top-level comments newest first with an opaque cursor', async () => {
    const item = await createContent(server, alice);
    for (let i = 0; i < 5; i++) expect((await comment(bob, { contentId: item, msg: `c${i}` })).status).toBe(201);
    const anon = new ApiClient(server.url);
    const first = await anon.get(`${BASE}/comments/${item}?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.data.comments.map((c: any) => c.msg)).toEqual(['c4', 'c3']);
    expect(first.body.data.hasMore).toBe(true);
    expect(typeof first.body.data.nextCursor).toBe('string');
    const second = await anon.get(`${BASE}/comments/${item}?limit=2&cursor=${encodeURIComponent(first.body.data.nextCursor)}`);
    expect(second.body.data.comments.map((c: any) => c.msg)).toEqual(['c2', 'c1']);
    const third = await anon.get(`${BASE}/comments/${item}?limit=2&cursor=${encodeURIComponent(second.body.data.nextCursor)}`);
    expect(third.body.data.comments.map((c: any) => c.msg)).toEqual(['c0']);
    expect(third.body.data.hasMore).toBe(false);
    expect(third.body.data.nextCursor).toBeNull();
    // Default page size is 20.
    const all = await bob.api.get(`${BASE}/comments/${item}`);
    expect(all.body.data.comments).toHaveLength(5);
  });
});

describe('comment reactions', () => {
  let target: string;
  beforeAll(async () => {
    target = (await comment(alice, { contentId, msg: 'x' })).body.data._id;
  });

  it('should fail with 401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).post(`${BASE}/comments/${target}/reactions`, { emoji: '👍' }), 401);
  });

  it.each([
    ['an empty emoji', ''],
    ['text that is not an emoji', 'not an emoji!'],
    ['an emoji that is not a string', 5],
  ])('should fail with 400 with %s', async (_case, emoji) => {
    expectErrorEnvelope(await bob.api.post(`${BASE}/comments/${target}/reactions`, { emoji }), 400);
  });

  it('should fail with 404 reacting to an unknown comment', async () => {
    expectErrorEnvelope(await bob.api.post(`${BASE}/comments/${randomUUID()}/reactions`, { emoji: '👍' }), 404);
  });

  it('should fail with 404 removing a reaction from an unknown comment', async () => {
    expectErrorEnvelope(await bob.api.delete(`${BASE}/comments/${randomUUID()}/reactions`), 404);
  });

  it('should keep one reaction per user, replace it, and remove it', async () => {
    const c = (await comment(alice, { contentId, msg: 'React to me' })).body.data;
    const first = await bob.api.post(`${BASE}/comments/${c._id}/reactions`, { emoji: '👍' });
    expect(first.status).toBe(200);
    expect(first.body.data.reactions).toEqual([{ author: { userId: bob.userId, name: 'Bob Tran' }, emoji: '👍' }]);
    const changed = await bob.api.post(`${BASE}/comments/${c._id}/reactions`, { emoji: '❤️' });
    expect(changed.body.data.reactions).toEqual([{ author: { userId: bob.userId, name: 'Bob Tran' }, emoji: '❤️' }]);
    await alice.api.post(`${BASE}/comments/${c._id}/reactions`, { emoji: 'thumbs_up' });
    const listed = (await bob.api.get(`${BASE}/comments/${contentId}?limit=100`)).body.data.comments.find((x: any) => x._id === c._id);
    expect(listed.reactions).toHaveLength(2);
    const removed = await bob.api.delete(`${BASE}/comments/${c._id}/reactions`);
    expect(removed.status).toBe(200);
    expect(removed.body.data.reactions.map((r: any) => r.author.userId)).toEqual([alice.userId]);
  });
});
