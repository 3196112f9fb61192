// The moderation queue and decisions over the real server (CONTRACT §21): refusals first (401,
// 403 without moderate:content, 400 on bad input, 404 for what does not exist), then the queue
// (one entry per target, oldest first, with the target's snapshot, counts and reports), and each
// decision with its effects: dismiss lists a held item again, remove takes content (and its media),
// comments and messages down, warn tells the author, suspend_user ends the user's sessions, refuses
// their login and holds their items until restore. Reporters are named to moderators only.
import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, loginAdmin, registerAndLogin, type TestUser } from '../helpers/api.js';
import { createContent as createPublished } from '../sns/fixtures.js';
import { CONTENT } from '../content/fixtures.js';
import { storedMedia } from '../helpers/stored-media.js';

const REPORTS = '/sns/api/v1/reports';
const QUEUE = '/api/v1/moderation/reports';
const CHAT = '/sns/api/v1/chat';
const resolvePath = (type: string, id: string) => `/api/v1/moderation/targets/${type}/${id}/resolve`;
const restorePath = (userId: string) => `/api/v1/moderation/users/${userId}/restore`;
const THRESHOLD = 2;

let server: TestServer;
let moderator: TestUser;
let author: TestUser;
let reporters: TestUser[];

const booted = useTestServer({ REPORT_HOLD_THRESHOLD: String(THRESHOLD) });
beforeAll(async () => {
  server = booted.current;
  moderator = await loginAdmin(server);
  [author, ...reporters] = await Promise.all(Array.from({ length: 4 }, () => registerAndLogin(server)));
});

const report = (user: TestUser, target_type: string, target_id: string, reason = 'scam', note: string | null = null) =>
  user.api.post(REPORTS, { target_type, target_id, reason, note });
const resolve = (user: TestUser | ApiClient, type: string, id: string, body: unknown) => ('api' in user ? user.api : user).post(resolvePath(type, id), body);
const queue = async (query = '') => {
  const res = await moderator.api.get(`${QUEUE}${query}`);
  expect(res.status).toBe(200);
  return res.body.data as { items: any[]; next_cursor: string | null };
};
/** Every open entry (all pages). */
async function openEntries(query = ''): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page = await queue(`?per_page=50${query}${cursor ? `&cursor=${cursor}` : ''}`);
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}
const inAll = async (client: ApiClient, id: string) => {
  const res = await client.get(`${CONTENT}/all?per_page=100`);
  expect(res.status).toBe(200);
  return res.body.data.item.some((i: { id: string }) => i.id === id);
};
async function commentOn(user: TestUser, contentId: string, msg = 'call me for a discount'): Promise<string> {
  const res = await user.api.post('/sns/api/v1/comments', { contentId, msg });
  expect(res.status).toBe(201);
  return res.body.data._id;
}
async function roomWith(sender: TestUser, others: TestUser[]): Promise<string> {
  const room = await sender.api.post(`${CHAT}/rooms`, { memberIds: others.map((u) => u.userId), name: `r-${randomUUID().slice(0, 8)}` });
  expect(room.status).toBe(201);
  return room.body.data.roomId;
}
async function send(sender: TestUser, roomId: string, msg: string): Promise<string> {
  const sent = await sender.api.post(`${CHAT}/messages`, { roomId, msg });
  expect(sent.status).toBe(201);
  return sent.body.data._id;
}
const notificationsOf = async (user: TestUser) => {
  const res = await user.api.get('/sns/api/v1/notifications?limit=50');
  expect(res.status).toBe(200);
  return res.body.data.notifications as any[];
};

describe('refusals', () => {
  it('should fail with 401 without a token', async () => {
    const anonymous = new ApiClient(server.url);
    expectErrorEnvelope(await anonymous.get(QUEUE), 401);
    expectErrorEnvelope(await resolve(anonymous, 'user', author.userId, { action: 'dismiss' }), 401);
    expectErrorEnvelope(await anonymous.post(restorePath(author.userId)), 401);
  });

  it('should fail with 403 without moderate:content', async () => {
    expectErrorEnvelope(await reporters[0].api.get(QUEUE), 403);
    expectErrorEnvelope(await resolve(reporters[0], 'user', author.userId, { action: 'suspend_user' }), 403);
    expectErrorEnvelope(await reporters[0].api.post(restorePath(author.userId)), 403);
    // Nothing happened: the author still works.
    expect((await author.api.get('/auth/api/v1/user/me')).status).toBe(200);
  });

  it('should fail with 400 on bad queue queries', async () => {
    for (const q of [
      'status=closed',
      'target_type=listing',
      'per_page=0',
      'per_page=1000',
      'per_page=abc',
      'cursor=garbage!!',
      `cursor=${Buffer.from(JSON.stringify(['yesterday', 'user', randomUUID()])).toString('base64url')}`,
      'extra=1',
    ]) {
      expectErrorEnvelope(await moderator.api.get(`${QUEUE}?${q}`), 400);
    }
  });

  it.each([
    ['an unknown target type', () => resolvePath('listing', author.userId), { action: 'dismiss' }],
    ['an unknown action', () => resolvePath('user', author.userId), { action: 'ban' }],
    ['no action', () => resolvePath('user', author.userId), {}],
    ['an action that is not a string', () => resolvePath('user', author.userId), { action: 3 }],
    ['a note over 1000 characters', () => resolvePath('user', author.userId), { action: 'warn', note: 'x'.repeat(1001) }],
    ['remove on a user', () => resolvePath('user', author.userId), { action: 'remove' }],
    ['an unknown field', () => resolvePath('user', author.userId), { action: 'warn', reporter_id: randomUUID() }],
  ])('should fail with 400 on %s', async (_case, p, body) => {
    expectErrorEnvelope(await moderator.api.post(p(), body), 400);
  });

  it('should fail with 404 for targets and users that do not exist', async () => {
    for (const type of ['content', 'comment', 'message', 'user']) {
      for (const id of [randomUUID(), 'not-a-uuid']) {
        expectErrorEnvelope(await resolve(moderator, type, id, { action: 'dismiss' }), 404);
      }
    }
    expectErrorEnvelope(await moderator.api.post(restorePath(randomUUID())), 404);
    expectErrorEnvelope(await moderator.api.post(restorePath('nobody')), 404);
  });
});

describe('the queue', () => {
  it('should list one entry per target, oldest first, with its snapshot, counts and reports, and page with a cursor', async () => {
    const contentId = await createPublished(server, author);
    const commentId = await commentOn(author, contentId, 'wire the deposit today');
    await report(reporters[0], 'comment', commentId, 'scam', 'asks for money');
    await report(reporters[1], 'comment', commentId, 'spam');
    await report(reporters[2], 'comment', commentId, 'scam');
    await report(reporters[0], 'user', author.userId, 'offensive');

    const entries = await openEntries();
    const commentEntry = entries.find((e) => e.target_type === 'comment' && e.target_id === commentId);
    const userEntry = entries.find((e) => e.target_type === 'user' && e.target_id === author.userId);
    expect(entries.indexOf(commentEntry)).toBeLessThan(entries.indexOf(userEntry));
    expect(commentEntry).toMatchObject({
      report_count: 3,
      reasons: { scam: 2, spam: 1 },
      target: { author_id: author.userId, text: 'wire the deposit today' },
    });
    expect(commentEntry.reports.map((r: any) => r.reporter_id)).toEqual([reporters[0].userId, reporters[1].userId, reporters[2].userId]);
    expect(commentEntry.reports[0]).toMatchObject({ reason: 'scam', note: 'asks for money' });
    expect(userEntry.target).toMatchObject({ author_id: author.userId, name: 'Test User' });
    // One entry per target, whatever the page size.
    const keys = entries.map((e) => `${e.target_type}:${e.target_id}`);
    expect(new Set(keys).size).toBe(keys.length);

    const first = await queue('?per_page=1');
    expect(first.items).toHaveLength(1);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await queue(`?per_page=1&cursor=${first.next_cursor}`);
    expect(second.items[0].target_id === first.items[0].target_id && second.items[0].target_type === first.items[0].target_type).toBe(false);

    const onlyUsers = await openEntries('&target_type=user');
    expect(onlyUsers.every((e) => e.target_type === 'user')).toBe(true);
  });
});

describe('decisions', () => {
  it('dismiss: closes the reports and lists a held item again', async () => {
    const contentId = await createPublished(server, author);
    for (const r of reporters.slice(0, THRESHOLD)) expect((await report(r, 'content', contentId)).status).toBe(201);
    const anonymous = new ApiClient(server.url);
    expectErrorEnvelope(await anonymous.get(`/api/v1/content/${contentId}`), 404);
    expect(await inAll(anonymous, contentId)).toBe(false);

    const res = await resolve(moderator, 'content', contentId, { action: 'dismiss', note: 'a fair listing' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ target_type: 'content', target_id: contentId, action: 'dismiss', resolved_reports: THRESHOLD });

    expect((await anonymous.get(`/api/v1/content/${contentId}`)).status).toBe(200);
    expect(await inAll(anonymous, contentId)).toBe(true);
    expect((await openEntries()).some((e) => e.target_id === contentId)).toBe(false);
    const resolved = (await queue('?status=resolved&target_type=content&per_page=50')).items.find((e) => e.target_id === contentId);
    expect(resolved.report_count).toBe(THRESHOLD);
    // The same reporter may report it again now that their report is closed.
    expect((await report(reporters[0], 'content', contentId)).status).toBe(201);
  });

  it('remove (content): 404 to everyone but its owner, who sees removed and the note; its media is not served', async () => {
    const contentId = await createPublished(server, author);
    await storedMedia(server.service).write(`content/${contentId}/thumbnail-abcdef12.jpg`, Buffer.from([0xff, 0xd8, 0xff, 0xd9]));
    const mediaUrl = `${server.url}/media/content/${contentId}/thumbnail-abcdef12.jpg`;
    expect((await fetch(mediaUrl)).status).toBe(200);
    await report(reporters[0], 'content', contentId, 'misleading_listing');
    const anonymous = new ApiClient(server.url);
    expect(await inAll(anonymous, contentId)).toBe(true);

    const res = await resolve(moderator, 'content', contentId, { action: 'remove', note: 'the price is not real' });
    expect(res.status).toBe(200);
    expect(res.body.data.resolved_reports).toBe(1);

    expectErrorEnvelope(await reporters[0].api.get(`/api/v1/content/${contentId}`), 404);
    expect(await inAll(anonymous, contentId)).toBe(false);
    const own = await author.api.get(`/api/v1/content/${contentId}`);
    expect(own.status).toBe(200);
    expect(own.body.data).toMatchObject({ status: 'removed', moderation_note: 'the price is not real' });
    expect((await fetch(mediaUrl)).status).toBe(404);

    const told = (await notificationsOf(author)).find((n) => n.type === 'moderation.action' && n.data.target_id === contentId);
    expect(told).toMatchObject({ actor: null, data: { action: 'remove', target_type: 'content', target_id: contentId, note: 'the price is not real' } });
    expect(JSON.stringify(told)).not.toContain(reporters[0].userId);
  });

  it('remove (comment): it reads as deleted, with no text', async () => {
    const contentId = await createPublished(server, reporters[2]);
    const commentId = await commentOn(author, contentId, 'visit my scam site');
    await report(reporters[0], 'comment', commentId, 'spam');
    expect((await resolve(moderator, 'comment', commentId, { action: 'remove' })).status).toBe(200);
    const list = await reporters[1].api.get(`/sns/api/v1/comments/${contentId}`);
    expect(list.status).toBe(200);
    const shown = list.body.data.comments.find((c: any) => c._id === commentId);
    expect(shown).toMatchObject({ deleted: true, msg: '' });
    expect(list.text).not.toContain('visit my scam site');
    // No reply or reaction on it any more.
    expectErrorEnvelope(await reporters[1].api.post(`/sns/api/v1/comments/${commentId}/reactions`, { emoji: '👍' }), 404);
  });

  it('remove (message): the history shows a tombstone', async () => {
    const roomId = await roomWith(author, [reporters[1]]);
    const messageId = await send(author, roomId, 'send the deposit to this account');
    await report(reporters[1], 'message', messageId, 'scam');
    expect((await resolve(moderator, 'message', messageId, { action: 'remove' })).status).toBe(200);
    const history = await reporters[1].api.get(`${CHAT}/rooms/${roomId}/messages`);
    expect(history.status).toBe(200);
    expect(history.body.data.messages.find((m: any) => m._id === messageId)).toEqual({ _id: messageId, roomId, deleted: true, createdAt: expect.any(String) });
    expect(history.text).not.toContain('send the deposit');
  });

  it('warn: tells the author what and why, never who reported', async () => {
    const roomId = await roomWith(author, [reporters[2]]);
    const messageId = await send(author, roomId, 'you are an idiot');
    await report(reporters[2], 'message', messageId, 'offensive', 'insulted me');
    const res = await resolve(moderator, 'message', messageId, { action: 'warn', note: 'keep it civil' });
    expect(res.body.data).toEqual({ target_type: 'message', target_id: messageId, action: 'warn', resolved_reports: 1 });
    const told = (await notificationsOf(author)).find((n) => n.type === 'moderation.action' && n.data.target_id === messageId);
    expect(told).toMatchObject({
      actor: null,
      subject: { type: 'message', id: messageId },
      data: { action: 'warn', target_type: 'message', target_id: messageId, note: 'keep it civil' },
    });
    expect(JSON.stringify(told)).not.toContain(reporters[2].userId);
    expect(JSON.stringify(told)).not.toContain('insulted me');
  });

  it('suspend_user: ends their sessions at once, refuses their login, holds their items; restore lifts it', async () => {
    const user = await registerAndLogin(server);
    const contentId = await createPublished(server, user);
    await report(reporters[0], 'user', user.userId, 'scam');
    const anonymous = new ApiClient(server.url);
    expect(await inAll(anonymous, contentId)).toBe(true);

    const res = await resolve(moderator, 'user', user.userId, { action: 'suspend_user', note: 'repeated scams' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ target_type: 'user', target_id: user.userId, action: 'suspend_user', resolved_reports: 1 });

    expectErrorEnvelope(await user.api.get('/auth/api/v1/user/me'), 401);
    const refresh = await new ApiClient(server.url).post(
      '/auth/api/v1/refresh-token',
      { refresh_token: user.refreshToken },
      {
        headers: { 'x-session-id': user.sessionId, 'x-user-username': user.username },
      },
    );
    expectErrorEnvelope(refresh, 401);
    expectErrorEnvelope(
      await new ApiClient(server.url).post('/auth/api/v1/login', { phone_number: user.phone, password: user.password }),
      403,
      'auth.error.account_suspended',
    );
    // A wrong password still answers as for anyone: the suspension is not told to a guesser.
    expectErrorEnvelope(await new ApiClient(server.url).post('/auth/api/v1/login', { phone_number: user.phone, password: 'wrong-password-1' }), 400);
    expect(await inAll(anonymous, contentId)).toBe(false);
    expectErrorEnvelope(await reporters[1].api.get(`/api/v1/content/${contentId}`), 404);

    const restored = await moderator.api.post(restorePath(user.userId));
    expect(restored.status).toBe(200);
    expect(restored.body.data).toEqual({ user_id: user.userId, status: 'active' });
    const again = await new ApiClient(server.url).post('/auth/api/v1/login', { phone_number: user.phone, password: user.password });
    expect(again.status).toBe(200);
    expect(await inAll(anonymous, contentId)).toBe(true);
  });

  it('suspend_user on a content item suspends its author', async () => {
    const user = await registerAndLogin(server);
    const contentId = await createPublished(server, user);
    await report(reporters[1], 'content', contentId, 'duplicate');
    expect((await resolve(moderator, 'content', contentId, { action: 'suspend_user' })).status).toBe(200);
    expectErrorEnvelope(await user.api.get('/auth/api/v1/user/me'), 401);
    expectErrorEnvelope(
      await new ApiClient(server.url).post('/auth/api/v1/login', { phone_number: user.phone, password: user.password }),
      403,
      'auth.error.account_suspended',
    );
    expect((await moderator.api.post(restorePath(user.userId))).status).toBe(200);
  });

  it('should append every decision to the audit log', async () => {
    const user = await registerAndLogin(server);
    await report(reporters[2], 'user', user.userId, 'spam');
    expect((await resolve(moderator, 'user', user.userId, { action: 'warn', note: 'first warning' })).status).toBe(200);
    const audit = await moderator.api.get(`/api/v1/moderation/audit?target_id=${user.userId}`);
    expect(audit.status).toBe(200);
    expect(audit.body.data.items[0]).toMatchObject({
      actor_id: moderator.userId,
      action: 'report.warn',
      target_type: 'user',
      target_id: user.userId,
      note: 'first warning',
    });
  });
});
