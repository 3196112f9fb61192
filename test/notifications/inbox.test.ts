// The notification inbox (CONTRACT §17) over the real server with real Socket.IO clients: each
// type arrives as `notification:new` and is stored; never for one's own action; not when its
// settings toggle is off; what happened offline is in the inbox; paging; mark-read.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll, nextEvent, type Transport } from '../realtime/socket-client.js';
import { createContent } from '../sns/fixtures.js';
import { notificationRetentionJob } from '../../jobs/notification-retention.js';
import { INBOX, inbox, listen, nextNotification, setSettings, settle, waitForNotification } from './fixtures.js';
import { announceContentChanged } from '../helpers/behind-the-service.js';

const booted = useTestServer();
let server: TestServer;
beforeAll(() => {
  server = booted.current;
});
afterEach(() => closeAll());
afterAll(() => closeAll());

const follow = (from: TestUser, to: TestUser) => from.api.post(`/auth/api/v1/users/${to.userId}/follow`, undefined, { headers: { 'x-user-id': from.userId } });
const comment = (from: TestUser, contentId: string, msg: string, parentId?: string) =>
  from.api.post('/sns/api/v1/comments', { contentId, msg, ...(parentId ? { parentId } : {}) });
const like = (from: TestUser, contentId: string) => from.api.post(`/api/v1/content/${contentId}/reactions`);
const unlike = (from: TestUser, contentId: string) => from.api.delete(`/api/v1/content/${contentId}/reactions`);

describe.each<Transport>(['websocket', 'polling'])('each social type arrives and is stored (%s)', (transport) => {
  let owner: TestUser;
  let fan: TestUser;
  let contentId: string;
  beforeAll(async () => {
    owner = await registerAndLogin(server);
    fan = await registerAndLogin(server);
    contentId = await createContent(server, owner);
  });

  it('should push and store `follow` when someone follows the user', async () => {
    const { socket } = await listen(server, owner, transport);
    const pushed = nextNotification(socket, (n) => n.type === 'follow');
    expect((await follow(fan, owner)).status).toBe(200);
    const n = await pushed;
    expect(n).toMatchObject({ type: 'follow', actor: { userId: fan.userId, name: 'Test User' }, subject: { type: 'user', id: fan.userId }, read_at: null });
    expect((await inbox(owner)).notifications.map((x: any) => x.id)).toContain(n.id);
  });

  it('should push `comment` to the uploader, `reply` to the parent author, `mention` to a named user', async () => {
    const named = await registerAndLogin(server);
    const [ownerSocket, fanSocket, namedSocket] = await Promise.all([
      listen(server, owner, transport),
      listen(server, fan, transport),
      listen(server, named, transport),
    ]);
    const onComment = nextNotification(ownerSocket.socket, (n) => n.type === 'comment');
    const top = await comment(fan, contentId, 'Is parking included?');
    expect(top.status).toBe(201);
    expect(await onComment).toMatchObject({ actor: { userId: fan.userId }, subject: { type: 'comment', id: top.body.data._id }, data: { contentId } });

    const onReply = nextNotification(fanSocket.socket, (n) => n.type === 'reply');
    const onMention = nextNotification(namedSocket.socket, (n) => n.type === 'mention');
    const reply = await comment(owner, contentId, `Yes, one space. @${named.username} can show you around.`, top.body.data._id);
    expect(reply.status).toBe(201);
    expect(await onReply).toMatchObject({ actor: { userId: owner.userId }, subject: { type: 'comment', id: reply.body.data._id } });
    expect(await onMention).toMatchObject({ actor: { userId: owner.userId }, data: { contentId, commentId: reply.body.data._id } });
    // The owner answering on their own item is not a `comment` to themselves.
    await settle();
    expect(ownerSocket.received.filter((n) => n.subject.id === reply.body.data._id)).toEqual([]);
    expect((await inbox(named)).notifications.filter((n: any) => n.type === 'mention')).toHaveLength(1);
  });

  it('should push `reaction` to the uploader, grouping likes of one item within the hour into one with a count', async () => {
    const second = await registerAndLogin(server);
    const item = await createContent(server, owner);
    const { socket } = await listen(server, owner, transport);
    const first = nextNotification(socket, (n) => n.type === 'reaction' && n.subject.id === item);
    expect((await like(fan, item)).status).toBe(200);
    const one = await first;
    expect(one).toMatchObject({ actor: { userId: fan.userId }, subject: { type: 'content', id: item }, data: { count: 1 } });

    await owner.api.post(`${INBOX}/read`, { ids: [one.id] });
    const bumped = nextNotification(socket, (n) => n.id === one.id && n.data.count === 2);
    expect((await like(second, item)).status).toBe(200);
    const two = await bumped;
    expect(two).toMatchObject({ actor: { userId: second.userId }, read_at: null });
    const stored = (await inbox(owner)).notifications.filter((n: any) => n.type === 'reaction' && n.subject.id === item);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ id: one.id, data: { count: 2 }, read_at: null });
    // Taking a like back notifies nobody.
    expect((await unlike(second, item)).status).toBe(200);
    await settle();
    expect((await inbox(owner)).notifications.filter((n: any) => n.type === 'reaction' && n.subject.id === item)[0].data.count).toBe(2);
  });
});

describe('reaction groups', () => {
  it('should open a new group once the hour of the previous one is over', async () => {
    const owner = await registerAndLogin(server);
    const a = await registerAndLogin(server);
    const b = await registerAndLogin(server);
    const item = await createContent(server, owner);
    await like(a, item);
    const first = await waitForNotification(owner, (n) => n.type === 'reaction' && n.subject.id === item);
    await server.service.app.database.rows(sql`update notifications set group_started_at = now() - interval '61 minutes' where id = ${first.id}`);
    await like(b, item);
    await waitForNotification(owner, (n) => n.type === 'reaction' && n.subject.id === item && n.id !== first.id);
    const groups = (await inbox(owner)).notifications.filter((n: any) => n.type === 'reaction');
    expect(groups.map((n: any) => n.data.count)).toEqual([1, 1]);
  });
});

describe('nobody is told of their own action', () => {
  it('should store nothing for a like, comment or mention of oneself', async () => {
    const owner = await registerAndLogin(server);
    const item = await createContent(server, owner);
    await like(owner, item);
    await comment(owner, item, `note to self @${owner.username}`);
    await settle();
    expect(await inbox(owner)).toMatchObject({ notifications: [], unread_count: 0 });
  });
});

describe('settings turn types off (content.in_app_notifications)', () => {
  it.each<[string, string, (owner: TestUser, fan: TestUser, item: string) => Promise<unknown>]>([
    ['new_followers', 'follow', (owner, fan) => follow(fan, owner)],
    ['comments', 'comment', (_owner, fan, item) => comment(fan, item, 'hello')],
    ['likes', 'reaction', (_owner, fan, item) => like(fan, item)],
    ['mentions', 'mention', (owner, fan, item) => comment(fan, item, `hi @${owner.username}`)],
  ])('should neither store nor push when %s is off (%s)', async (toggle, type, act) => {
    const owner = await registerAndLogin(server);
    const fan = await registerAndLogin(server);
    const item = await createContent(server, fan); // the fan's item: a mention is then the only notification
    const ownItem = await createContent(server, owner);
    await setSettings(owner, { content: { in_app_notifications: { [toggle]: false } } });
    const { received } = await listen(server, owner, 'websocket');
    await act(owner, fan, type === 'mention' ? item : ownItem);
    await settle();
    expect(received.filter((n) => n.type === type)).toEqual([]);
    expect((await inbox(owner)).notifications.filter((n: any) => n.type === type)).toEqual([]);

    // Back on, the same kind of action is told.
    await setSettings(owner, { content: { in_app_notifications: { [toggle]: true } } });
    const other = await registerAndLogin(server);
    await act(owner, other, type === 'mention' ? await createContent(server, other) : ownItem);
    await waitForNotification(owner, (n) => n.type === type);
  });
});

describe('the legacy pushes obey the same toggles', () => {
  it('should send no follow:new when new_followers is off and no comment:reply when comments is off', async () => {
    const user = await registerAndLogin(server);
    const fan = await registerAndLogin(server);
    const item = await createContent(server, fan);
    const top = await comment(user, item, 'How far is the metro?');
    await setSettings(user, { content: { in_app_notifications: { new_followers: false, comments: false } } });
    const { socket } = await listen(server, user, 'websocket');
    const legacy: string[] = [];
    socket.on('follow:new', () => legacy.push('follow:new'));
    socket.on('comment:reply', () => legacy.push('comment:reply'));
    await follow(fan, user);
    await comment(fan, item, '5 minutes on foot', top.body.data._id);
    await settle();
    expect(legacy).toEqual([]);

    await setSettings(user, { content: { in_app_notifications: { new_followers: true, comments: true } } });
    const other = await registerAndLogin(server);
    const both = Promise.all([nextEvent(socket, 'follow:new'), nextEvent(socket, 'comment:reply')]);
    await follow(other, user);
    await comment(other, item, 'and a bus stop', top.body.data._id);
    await both;
  });
});

describe('the inbox', () => {
  let user: TestUser;
  const fans: TestUser[] = [];
  beforeAll(async () => {
    user = await registerAndLogin(server);
    // While the user is offline (no socket), five people follow them.
    for (let i = 0; i < 5; i++) {
      const fan = await registerAndLogin(server);
      fans.push(fan);
      expect((await follow(fan, user)).status).toBe(200);
    }
  });

  it('should list what happened while the user was offline, newest first, with the unread count', async () => {
    const data = await inbox(user);
    expect(data.unread_count).toBe(5);
    expect(data.notifications.map((n: any) => n.actor.userId)).toEqual(fans.map((f) => f.userId).reverse());
    expect(data).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it('should page with the cursor, without gaps or repeats', async () => {
    const first = await inbox(user, '?limit=2');
    expect(first.notifications).toHaveLength(2);
    expect(first.hasMore).toBe(true);
    const second = await inbox(user, `?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`);
    const third = await inbox(user, `?limit=2&cursor=${encodeURIComponent(second.nextCursor)}`);
    expect(third).toMatchObject({ hasMore: false, nextCursor: null });
    const ids = [...first.notifications, ...second.notifications, ...third.notifications].map((n: any) => n.id);
    expect(new Set(ids).size).toBe(5);
    expect(ids).toEqual((await inbox(user)).notifications.map((n: any) => n.id));
  });

  it('should mark some read, ignore ids of other users, then mark all read', async () => {
    const all = (await inbox(user)).notifications;
    const marked = await user.api.post(`${INBOX}/read`, { ids: [all[0].id, all[1].id] });
    expect(marked.status).toBe(200);
    expect(marked.body.data).toEqual({ unread_count: 3 });
    const listed = (await inbox(user)).notifications;
    expect(listed[0].read_at).not.toBeNull();
    expect(listed[2].read_at).toBeNull();

    // Someone else's notification id (and an unknown one) changes nothing, for anybody.
    const other = await registerAndLogin(server);
    await follow(user, other);
    const theirs = await waitForNotification(other, (n) => n.type === 'follow');
    const foreign = await user.api.post(`${INBOX}/read`, { ids: [theirs.id, randomUUID()] });
    expect(foreign.body.data).toEqual({ unread_count: 3 });
    const byOther = await other.api.post(`${INBOX}/read`, { ids: [all[2].id] });
    expect(byOther.body.data).toEqual({ unread_count: 1 });
    expect((await inbox(other)).notifications[0].read_at).toBeNull();
    expect((await inbox(user)).unread_count).toBe(3);

    const everything = await user.api.post(`${INBOX}/read`, {});
    expect(everything.body.data).toEqual({ unread_count: 0 });
    expect((await inbox(user)).notifications.every((n: any) => n.read_at !== null)).toBe(true);
  });

  it('should refuse bad input with the error envelope', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).get(INBOX), 401);
    expectErrorEnvelope(await new ApiClient(server.url).post(`${INBOX}/read`, {}), 401);
    expectErrorEnvelope(await user.api.get(`${INBOX}?limit=0`), 400);
    expectErrorEnvelope(await user.api.get(`${INBOX}?limit=abc`), 400);
    expectErrorEnvelope(await user.api.get(`${INBOX}?limit=101`), 400);
    expectErrorEnvelope(await user.api.get(`${INBOX}?cursor=not-a-cursor`), 400);
    expectErrorEnvelope(await user.api.get(`${INBOX}?surprise=1`), 400);
    expectErrorEnvelope(await user.api.post(`${INBOX}/read`, { ids: 'all' }), 400);
    expectErrorEnvelope(await user.api.post(`${INBOX}/read`, { ids: ['not-a-uuid'] }), 400);
    expectErrorEnvelope(await user.api.post(`${INBOX}/read`, { ids: [] }), 400);
    expectErrorEnvelope(await user.api.post(`${INBOX}/read`, { ids: Array.from({ length: 101 }, () => randomUUID()) }), 400);
    expectErrorEnvelope(await user.api.post(`${INBOX}/read`, { ids: [randomUUID()], extra: true }), 400);
    expectErrorEnvelope(await user.api.request('POST', `${INBOX}/read`, { rawBody: '{', headers: { 'content-type': 'application/json' } }), 400);
  });
});

describe('mentions', () => {
  it('should tell each named user once, skip unknown names and bound the number of names', async () => {
    const author = await registerAndLogin(server);
    const owner = await registerAndLogin(server);
    const item = await createContent(server, owner);
    const named = await Promise.all(Array.from({ length: 11 }, () => registerAndLogin(server)));
    const text = `@${named[0].username} @${named[0].username} @nobody_${randomUUID().slice(0, 8)} ` + named.map((u) => `@${u.username}`).join(' ');
    expect((await comment(author, item, text)).status).toBe(201);
    await waitForNotification(named[0], (n) => n.type === 'mention');
    await settle();
    const counts = await Promise.all(named.map(async (u) => (await inbox(u)).notifications.filter((n: any) => n.type === 'mention').length));
    // At most 10 names per comment: the repeated first name counts once, the unknown one takes a place.
    expect(counts.slice(0, 9)).toEqual(Array(9).fill(1));
    expect(counts.slice(9)).toEqual([0, 0]);
    // Nobody is named from a comment on an item that is not published (they could not see it).
    const draft = await createContent(server, author);
    await server.service.app.database.rows(sql`update contents set status = 'processing' where id = ${draft}`);
    await announceContentChanged(server, draft);
    const quiet = (await inbox(named[1])).notifications.length;
    expect((await comment(author, draft, `@${named[1].username} look`)).status).toBe(201);
    await settle();
    expect((await inbox(named[1])).notifications.length).toBe(quiet);
    // An e-mail address is not a mention.
    const before = (await inbox(named[1])).notifications.length;
    await comment(author, item, `write to agent@${named[1].username}.com`);
    await settle();
    expect((await inbox(named[1])).notifications.length).toBe(before);
  });
});

describe('system notifications', () => {
  it('should store and push `campaign.completed` once when a campaign ends, however many ticks run', async () => {
    const owner = await registerAndLogin(server);
    const video = await createContent(server, owner);
    const id = randomUUID();
    await server.service.app.database.rows(sql`
      insert into campaigns (id, user_id, video_id, name, source, status, budget_amount, platform_fee, currency, duration_days, targeting, launch_time, ends_at)
      values (${id}, ${owner.userId}, ${video}, 'Spring launch', 'create', 'active', 1000000, 50000, 'VND', 7, '{}'::jsonb,
              now() - interval '8 days', now() - interval '1 day')`);
    const { socket } = await listen(server, owner, 'websocket');
    const pushed = nextNotification(socket, (n) => n.type === 'campaign.completed');
    await Promise.all([server.service.services.campaigns.completeDue(new Date()), server.service.services.campaigns.completeDue(new Date())]);
    expect(await pushed).toMatchObject({ actor: null, subject: { type: 'campaign', id }, data: { name: 'Spring launch', video_id: video } });
    await settle();
    expect((await inbox(owner)).notifications.filter((n: any) => n.type === 'campaign.completed')).toHaveLength(1);
  });

  it('should take `saved_search.match` from the notify API in a caller transaction', async () => {
    const user = await registerAndLogin(server);
    const uploader = await registerAndLogin(server);
    const item = await createContent(server, uploader);
    const { socket } = await listen(server, user, 'polling');
    const pushed = nextNotification(socket, (n) => n.type === 'saved_search.match');
    const { notifications } = server.service.services;
    const search = randomUUID();
    const write = () =>
      server.service.app.database.transaction((tx) =>
        notifications.notify(tx, {
          userId: user.userId,
          type: 'saved_search.match',
          actorId: uploader.userId,
          subject: { type: 'content', id: item },
          data: { saved_search_id: search },
          dedupeKey: `saved_search.match:${search}:${item}`,
        }),
      );
    await write();
    await write(); // a retried match: the key keeps it one
    notifications.deliverSoon();
    expect(await pushed).toMatchObject({ subject: { type: 'content', id: item }, data: { saved_search_id: search } });
    await settle();
    expect((await inbox(user)).notifications).toHaveLength(1);
  });

  it('should keep the inbox to 90 days (the daily retention job)', async () => {
    const user = await registerAndLogin(server);
    const fans = [await registerAndLogin(server), await registerAndLogin(server)];
    for (const fan of fans) await follow(fan, user);
    const [recent, old] = (await inbox(user)).notifications;
    await server.service.app.database.rows(sql`update notifications set created_at = now() - interval '91 days' where id = ${old.id}`);
    await notificationRetentionJob.run(server.service, new Date());
    expect((await inbox(user)).notifications.map((n: any) => n.id)).toEqual([recent.id]);
  });

  it('should roll back the notification with the change that failed', async () => {
    const user = await registerAndLogin(server);
    const { notifications } = server.service.services;
    await expect(
      server.service.app.database.transaction(async (tx) => {
        await notifications.notify(tx, { userId: user.userId, type: 'saved_search.match', actorId: null, subject: { type: 'content', id: randomUUID() } });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await notifications.deliverPending();
    expect((await inbox(user)).notifications).toEqual([]);
  });
});
