// POST /sns/api/v1/reports over the real server (CONTRACT §21): refusals first (401, 400 on bad
// types, unknown target types and reasons, oversized notes; 404 for what the caller cannot see;
// 409 for a second open report; 429 past 20 a day), then the answer, and the hold: a content item
// reported by REPORT_HOLD_THRESHOLD distinct reporters with verified phones leaves /all,
// /completed, /feeds and search, answers others 404 and shows its owner `under_review`.
import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { createContent as createPublished } from '../sns/fixtures.js';
import { createContent as createDraft, CONTENT, fullBody, publish } from '../content/fixtures.js';

const REPORTS = '/sns/api/v1/reports';
const CHAT = '/sns/api/v1/chat';
const THRESHOLD = 3;

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;

const booted = useTestServer({ REPORT_HOLD_THRESHOLD: String(THRESHOLD) });
beforeAll(async () => {
  server = booted.current;
  [alice, bob, carol] = await Promise.all([
    registerAndLogin(server, { given_name: 'Alice', family_name: 'Nguyen' }),
    registerAndLogin(server, { given_name: 'Bob', family_name: 'Tran' }),
    registerAndLogin(server, { given_name: 'Carol', family_name: 'Le' }),
  ]);
});

const report = (user: TestUser | ApiClient, body: unknown) => ('api' in user ? user.api : user).post(REPORTS, body);

async function commentOn(user: TestUser, contentId: string, msg = 'hello'): Promise<string> {
  const res = await user.api.post('/sns/api/v1/comments', { contentId, msg });
  expect(res.status).toBe(201);
  return res.body.data._id;
}

async function messageIn(sender: TestUser, others: TestUser[]): Promise<string> {
  const room = await sender.api.post(`${CHAT}/rooms`, { memberIds: others.map((u) => u.userId), name: `r-${randomUUID().slice(0, 8)}` });
  expect(room.status).toBe(201);
  const sent = await sender.api.post(`${CHAT}/messages`, { roomId: room.body.data.roomId, msg: 'buy now, wire money first' });
  expect(sent.status).toBe(201);
  return sent.body.data._id;
}

describe('POST /sns/api/v1/reports: refusals', () => {
  it('should fail with 401 without a token', async () => {
    expectErrorEnvelope(await report(new ApiClient(server.url), { target_type: 'user', target_id: alice.userId, reason: 'spam' }), 401);
  });

  it.each([
    ['no target_type', () => ({ target_id: alice.userId, reason: 'spam' })],
    ['no target_id', () => ({ target_type: 'user', reason: 'spam' })],
    ['no reason', () => ({ target_type: 'user', target_id: alice.userId })],
    ['an unknown target type', () => ({ target_type: 'listing', target_id: alice.userId, reason: 'spam' })],
    ['an unknown reason', () => ({ target_type: 'user', target_id: alice.userId, reason: 'ugly' })],
    ['a target_id that is not a string', () => ({ target_type: 'user', target_id: 42, reason: 'spam' })],
    ['a note that is not a string', () => ({ target_type: 'user', target_id: alice.userId, reason: 'spam', note: { x: 1 } })],
    ['a note over 1000 characters', () => ({ target_type: 'user', target_id: alice.userId, reason: 'other', note: 'x'.repeat(1001) })],
    ['a huge target_id', () => ({ target_type: 'user', target_id: 'a'.repeat(10_000), reason: 'spam' })],
    ['an unknown field', () => ({ target_type: 'user', target_id: alice.userId, reason: 'spam', reporter_id: bob.userId })],
  ])('should fail with 400 with %s', async (_case, body) => {
    expectErrorEnvelope(await report(bob, body()), 400);
  });

  it('should name the note when it is too long', async () => {
    const err = expectErrorEnvelope(await report(bob, { target_type: 'user', target_id: alice.userId, reason: 'other', note: 'x'.repeat(1001) }), 400);
    expect(err.details?.field).toBe('note');
  });

  it('should fail with 404 for ids that name nothing', async () => {
    for (const target_type of ['content', 'comment', 'message', 'user']) {
      for (const target_id of [randomUUID(), 'not-a-uuid', "' or 1=1 --"]) {
        expectErrorEnvelope(await report(bob, { target_type, target_id, reason: 'spam' }), 404, 'reports.error.target_not_found');
      }
    }
  });

  it("should fail with 404 for a content item the caller cannot see (another's unpublished item)", async () => {
    const draft = await createDraft(alice, fullBody());
    expectErrorEnvelope(await report(bob, { target_type: 'content', target_id: draft, reason: 'scam' }), 404, 'reports.error.target_not_found');
  });

  it('should fail with 404 for a message of a room the caller is not a member of', async () => {
    const messageId = await messageIn(alice, [bob]);
    expectErrorEnvelope(await report(carol, { target_type: 'message', target_id: messageId, reason: 'offensive' }), 404, 'reports.error.target_not_found');
    // The same message, reported by a member of its room, is taken.
    expect((await report(bob, { target_type: 'message', target_id: messageId, reason: 'offensive' })).status).toBe(201);
  });

  it('should fail with 400 on reporting oneself or what one wrote', async () => {
    expectErrorEnvelope(await report(bob, { target_type: 'user', target_id: bob.userId, reason: 'spam' }), 400, 'reports.error.own_target');
    const own = await createPublished(server, bob);
    expectErrorEnvelope(await report(bob, { target_type: 'content', target_id: own, reason: 'spam' }), 400, 'reports.error.own_target');
  });

  it('should fail with 409 on a second open report of the same target by the same user', async () => {
    const contentId = await createPublished(server, alice);
    const commentId = await commentOn(alice, contentId);
    expect((await report(carol, { target_type: 'comment', target_id: commentId, reason: 'spam' })).status).toBe(201);
    expectErrorEnvelope(await report(carol, { target_type: 'comment', target_id: commentId, reason: 'offensive' }), 409, 'reports.error.already_reported');
    // Another user may report it too.
    expect((await report(bob, { target_type: 'comment', target_id: commentId, reason: 'spam' })).status).toBe(201);
  });

  it('should fail with 429 past 20 reports a day by one user, whatever RATE_LIMIT_SCALE', async () => {
    const reporter = await registerAndLogin(server);
    const targets = await Promise.all(Array.from({ length: 21 }, () => registerAndLogin(server)));
    for (const target of targets.slice(0, 20)) {
      expect((await report(reporter, { target_type: 'user', target_id: target.userId, reason: 'spam' })).status).toBe(201);
    }
    expectErrorEnvelope(await report(reporter, { target_type: 'user', target_id: targets[20].userId, reason: 'spam' }), 429, 'reports.error.daily_limit');
    // Others are not affected.
    expect((await report(carol, { target_type: 'user', target_id: targets[20].userId, reason: 'spam' })).status).toBe(201);
  });
});

describe('POST /sns/api/v1/reports: the answer', () => {
  it('should answer 201 with the report, and nothing of who else reported', async () => {
    const res = await report(bob, { target_type: 'user', target_id: alice.userId, reason: 'scam', note: 'asks for deposits by wire' });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(Object.keys(res.body.data).sort()).toEqual(['created_at', 'id', 'reason', 'status', 'target_id', 'target_type']);
    expect(res.body.data).toMatchObject({ target_type: 'user', target_id: alice.userId, reason: 'scam', status: 'open' });
    expect(new Date(res.body.data.created_at).toISOString()).toBe(res.body.data.created_at);
  });

  it('should take a report of each target type the caller can see', async () => {
    const contentId = await createPublished(server, alice);
    const commentId = await commentOn(alice, contentId);
    const messageId = await messageIn(alice, [carol]);
    for (const [target_type, target_id] of [
      ['content', contentId],
      ['comment', commentId],
      ['message', messageId],
      ['user', alice.userId],
    ]) {
      const res = await report(carol, { target_type, target_id, reason: 'other', note: null });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ target_type, target_id, status: 'open' });
    }
  });
});

describe('the hold after REPORT_HOLD_THRESHOLD verified reporters', () => {
  const tag = `hold${randomUUID().slice(0, 8)}`;
  const titled = () =>
    fullBody({ hash_tags: [`#${tag}`], content_info: [{ lang: 'en', project_name: `Held ${tag}`, description: tag, address: 'Somewhere' }] });
  const searchAll = (client: ApiClient) => client.get(`${CONTENT}/all?search=${tag}&per_page=50`);
  const searchCompleted = (client: ApiClient) => client.get(`${CONTENT}/completed?search=${tag}&per_page=50`);
  const ids = (res: { body: any }) => (res.body.data.item ?? res.body.data.items).map((i: { id: string }) => i.id);

  let owner: TestUser;
  let reporters: TestUser[];
  let viewer: TestUser;

  beforeAll(async () => {
    [owner, viewer, ...reporters] = await Promise.all(Array.from({ length: THRESHOLD + 3 }, () => registerAndLogin(server)));
    // The viewer follows the owner, so the item leads their feed while it is listed.
    expect((await viewer.api.post(`/auth/api/v1/users/${owner.userId}/follow`, undefined, { headers: { 'x-user-id': viewer.userId } })).status).toBeLessThan(
      300,
    );
  });

  it('should not hold an item on reports by users whose phones are not verified, nor below the threshold', async () => {
    const item = await publish(server, owner, titled());
    const unverified = reporters.slice(0, THRESHOLD - 1);
    const extra = await registerAndLogin(server);
    await server.service.app.database.rows(sql`update users set phone_verified = false where id = ${extra.userId}`);
    for (const r of [...unverified, extra]) {
      expect((await report(r, { target_type: 'content', target_id: item, reason: 'scam' })).status).toBe(201);
    }
    // THRESHOLD reports, one of them unverified: still listed and visible.
    expect(ids(await searchAll(new ApiClient(server.url)))).toContain(item);
    expect((await new ApiClient(server.url).get(`/api/v1/content/${item}`)).status).toBe(200);
  });

  it('should hold the item once enough verified users reported it: gone from every listing, 404 to others, under_review to its owner', async () => {
    const item = await publish(server, owner, titled());
    const anonymous = new ApiClient(server.url);
    // Read once, so the read model holds the item and the pages: the hold must show through them.
    expect((await anonymous.get(`/api/v1/content/${item}`)).status).toBe(200);
    expect(ids(await searchAll(anonymous))).toContain(item);
    expect(ids(await searchCompleted(anonymous))).toContain(item);
    expect(ids(await viewer.api.get(`${CONTENT}/feeds?per_page=50`))).toContain(item);

    for (const r of reporters.slice(0, THRESHOLD)) {
      expect((await report(r, { target_type: 'content', target_id: item, reason: 'misleading_listing' })).status).toBe(201);
    }

    expect(ids(await searchAll(anonymous))).not.toContain(item);
    expect(ids(await searchAll(viewer.api))).not.toContain(item);
    expect(ids(await searchCompleted(anonymous))).not.toContain(item);
    expect(ids(await viewer.api.get(`${CONTENT}/feeds?per_page=50`))).not.toContain(item);
    expectErrorEnvelope(await viewer.api.get(`/api/v1/content/${item}`), 404);
    // Others cannot comment on it or report it any more: it does not exist for them.
    expectErrorEnvelope(await viewer.api.post('/sns/api/v1/comments', { contentId: item, msg: 'hi' }), 404);
    expectErrorEnvelope(await report(viewer, { target_type: 'content', target_id: item, reason: 'spam' }), 404, 'reports.error.target_not_found');

    const mine = await owner.api.get(`/api/v1/content/${item}`);
    expect(mine.status).toBe(200);
    expect(mine.body.data.status).toBe('under_review');
    // Nothing in the owner's view names a reporter.
    for (const r of reporters) expect(mine.text).not.toContain(r.userId);
  });
});
