// The cache-truth scenarios, shared by the one-node and the two-node test. Each warms every read
// it checks (WARM_READS times on every reader node, asserting the state before the change each
// time), makes one change through the API on the primary node, and then reads once on every
// reader node (the other node first): that very next read must show the change. No pauses, no
// retries: a cache that answers from memory must have been corrected by the time the change's
// answer reached its client.
import { randomBytes } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { expectErrorEnvelope, login, registerAndLogin, type ApiResponse, type TestUser } from '../helpers/api.js';
import { CONTENT, createContent } from '../content/fixtures.js';
import { follow, unfollow } from '../feed/fixtures.js';
import { avatarForm, makeImage, putAvatar } from '../accounts/fixtures.js';
import { closeAll, connect, refusal } from '../realtime/socket-client.js';
import { sessionTimeoutJob } from '../../jobs/session-timeout.js';
import { on, type Cluster, type NodeRef } from './cluster.js';
import { buildWorld, type World } from './world.js';
import { finishProcessing, publishItem } from './publishing.js';
import {
  activeSessionIds,
  comments,
  feedIds,
  feedPagesAt,
  feedWalk,
  feedWalkWithCursors,
  HOME,
  itemViews,
  profile,
  profileData,
  projectName,
  type View,
} from './views.js';

/** How many times each read is made before the change. */
const WARM_READS = 3;
const AUTHORIZATION = '/authorization/api/v1';

/** Lower-case letters, for role and permission names (which take no digits up front). */
const letters = () => [...randomBytes(8)].map((b) => String.fromCharCode(97 + (b % 26))).join('');

/** Where an edit moves an item: far outside the viewport around HOME. */
const ELSEWHERE = { latitude: 21.0285, longitude: 105.8542 };

export function describeCacheTruth(cluster: () => Cluster): void {
  let world: World;

  beforeAll(async () => {
    world = await buildWorld(cluster().primary);
  }, 120_000);
  afterEach(() => closeAll());

  /** `check` on every reader node, in order. */
  async function onEveryNode(check: (node: NodeRef) => Promise<void>): Promise<void> {
    for (const node of cluster().readers) await check(node);
  }

  /** Fills whatever the nodes keep: `check` (the state before the change) WARM_READS times on every node. */
  async function warm(check: (node: NodeRef) => Promise<void>): Promise<void> {
    for (let i = 0; i < WARM_READS; i++) await onEveryNode(check);
  }

  function expectStatus(res: ApiResponse, status: number, where: string): void {
    expect(res.status, `${where}: ${res.text}`).toBe(status);
  }

  function expectRefused(res: ApiResponse, errorCode: string, where: string): void {
    expectStatus(res, 401, where);
    expect(expectErrorEnvelope(res, 401).error_code, where).toBe(errorCode);
  }

  /** Every view of `id` on `node` (as the follower), each passed to `check` with a label naming it. */
  async function eachView(node: NodeRef, id: string, check: (view: View, where: string) => void): Promise<void> {
    for (const view of await itemViews(node, id, world.follower)) check(view, `${node.name}: ${view.label}`);
  }

  describe('a session that ends', () => {
    const sessionHeaders = (u: TestUser) => ({ 'x-user-username': u.username, 'x-session-id': u.sessionId });

    /** Both sessions answer, over HTTP and Socket.IO, and `keep` lists `ending`. */
    const bothLive = (ending: TestUser, keep: TestUser) => async (node: NodeRef) => {
      expectStatus(await profile(node, ending), 200, `${node.name}: the ending session`);
      expectStatus(await profile(node, keep), 200, `${node.name}: the kept session`);
      expect(await activeSessionIds(node, keep), node.name).toContain(ending.sessionId);
      (await connect(node.url, '/notifications', ending.token, 'websocket')).close();
    };

    /** `ended` is refused with `errorCode` over HTTP and Socket.IO; `keep` still answers. */
    const endedOnly = (ended: TestUser, keep: TestUser, errorCode: string) => async (node: NodeRef) => {
      expectRefused(await profile(node, ended), errorCode, `${node.name}: the ended session`);
      const refused = await refusal(node.url, '/notifications', ended.token, 'websocket');
      expect(refused.data?.error_code, `${node.name}: socket of the ended session`).toBe(errorCode);
      expectStatus(await profile(node, keep), 200, `${node.name}: the kept session`);
      expect(await activeSessionIds(node, keep), node.name).not.toContain(ended.sessionId);
    };

    const newSession = (user: TestUser) => login(cluster().primary, user.phone, user.password);

    it('should refuse a session revoked by id on the next request, and keep the other session', async () => {
      const [ending, keep] = [await newSession(world.sessions), await newSession(world.sessions)];
      await warm(bothLive(ending, keep));
      expectStatus(await keep.api.delete(`${CONTENT}/user/sessions/${ending.sessionId}`), 200, 'revoke');
      await onEveryNode(endedOnly(ending, keep, 'auth.error.session_revoked'));
    });

    it('should refuse a session that logged out on the next request, and keep the other session', async () => {
      const [ending, keep] = [await newSession(world.sessions), await newSession(world.sessions)];
      await warm(bothLive(ending, keep));
      expectStatus(await ending.api.post('/auth/api/v1/logout', undefined, { headers: sessionHeaders(ending) }), 200, 'logout');
      await onEveryNode(endedOnly(ending, keep, 'auth.error.session_revoked'));
    });

    it('should refuse every other session on the next request after "end the others"', async () => {
      const [first, second, keep] = [await newSession(world.sessions), await newSession(world.sessions), await newSession(world.sessions)];
      await warm(async (node) => {
        await bothLive(first, keep)(node);
        await bothLive(second, keep)(node);
      });
      const res = await keep.api.delete(`${CONTENT}/user/sessions/others`);
      expectStatus(res, 200, 'end the others');
      expect(res.body.data.revoked_count).toBeGreaterThanOrEqual(2);
      await onEveryNode(async (node) => {
        await endedOnly(first, keep, 'auth.error.session_revoked')(node);
        await endedOnly(second, keep, 'auth.error.session_revoked')(node);
      });
    });

    it('should refuse a session whose used refresh token came back, on the next request', async () => {
      const [ending, keep] = [await newSession(world.sessions), await newSession(world.sessions)];
      await warm(bothLive(ending, keep));
      const refresh = (token: string) =>
        on(cluster().readers[0], null).post('/auth/api/v1/refresh-token', { refresh_token: token }, { headers: sessionHeaders(ending) });
      expectStatus(await refresh(ending.refreshToken), 200, 'refresh');
      expectRefused(await refresh(ending.refreshToken), 'auth.error.refresh_token_reused', 'the used refresh token');
      await onEveryNode(endedOnly(ending, keep, 'auth.error.session_revoked'));
    });

    it('should refuse a session ended by its idle timeout (privacy.session_timeout) on the next request', async () => {
      const [ending, keep] = [world.idle, await newSession(world.idle)];
      await warm(bothLive(ending, keep));
      // Idle for 7 minutes with a timeout of 1: the scheduled sweep ends it, as it does every minute.
      const primary = cluster().primary;
      await primary.service.app.database.rows(sql`update sessions set last_seen_at = now() - interval '7 minutes' where id = ${ending.sessionId}`);
      await sessionTimeoutJob.run(primary.service, new Date());
      await onEveryNode(endedOnly(ending, keep, 'auth.error.session_timed_out'));
    });
  });

  describe('roles and permissions that change', () => {
    const granted = async (node: NodeRef, role: string): Promise<string[]> =>
      (await on(node, null).get(`${AUTHORIZATION}/permissions?role_names=${role}`)).body.data.permission_names;
    const permissionNames = async (node: NodeRef): Promise<string[]> => (await on(node, null).get(`${AUTHORIZATION}/permissions`)).body.data.permission_names;
    const roles = async (node: NodeRef): Promise<{ name: string; permission_names: string[] }[]> =>
      (await on(node, world.admin).get(`${AUTHORIZATION}/roles`)).body.data.items;
    const permissionIds = async (...names: string[]): Promise<string[]> => {
      const all = (await world.admin.api.get(`${AUTHORIZATION}/permissions`)).body.data.permissions as { _id: string; name: string }[];
      return names.map((name) => all.find((p) => p.name === name)!._id);
    };

    it("should list a new permission and a new role's grants on the next read", async () => {
      const permission = `audit_${letters()}:report`;
      const role = `auditor_${letters()}`;
      await warm(async (node) => {
        expect(await permissionNames(node), node.name).not.toContain(permission);
        expect(await granted(node, role), node.name).toEqual([]);
        expect(
          (await roles(node)).map((r) => r.name),
          node.name,
        ).not.toContain(role);
      });
      const created = await world.admin.api.post(`${AUTHORIZATION}/permissions`, { name: permission, description: 'Read audit reports' });
      expectStatus(created, 201, 'create the permission');
      await onEveryNode(async (node) => expect(await permissionNames(node), node.name).toContain(permission));

      const [contact] = await permissionIds('read:contact');
      expectStatus(
        await world.admin.api.post(`${AUTHORIZATION}/roles`, { name: role, permission_ids: [created.body.data._id, contact] }),
        201,
        'create the role',
      );
      await onEveryNode(async (node) => {
        const grants = [permission, 'read:contact'].sort();
        expect(await granted(node, role), node.name).toEqual(grants);
        expect((await roles(node)).find((r) => r.name === role)?.permission_names, node.name).toEqual(grants);
      });
    });

    // The user is given the role through PUT /users/{userId}/roles (CONTRACT §21). The grants are
    // changed as an administrator's tool would: in the database, then `role.permissions.changed`
    // (the event declared for it) on node A's bus, waited for (test/moderation/roles.test.ts
    // changes them through PUT /roles/{id}).
    it('should apply a permission taken from a role, and given back, on the next request of its holder', async () => {
      const primary = cluster().primary;
      const role = `holder_${letters()}`;
      const { other } = world;
      const id = world.items.other;
      expectStatus(
        await world.admin.api.post(`${AUTHORIZATION}/roles`, { name: role, permission_ids: await permissionIds('read:profile', 'read:contact') }),
        201,
        'create the role',
      );
      const registered = await registerAndLogin(primary);
      expectStatus(await world.admin.api.put(`${AUTHORIZATION}/users/${registered.userId}/roles`, { role_names: [role] }), 200, 'assign the role');
      const holder = await login(primary, registered.phone, registered.password);

      const setGrant = async (permission: string, held: boolean) => {
        await primary.service.app.database.rows(
          held
            ? sql`insert into role_permissions (role_id, permission_id) select r.id, p.id from roles r, permissions p where r.name = ${role} and p.name = ${permission}`
            : sql`delete from role_permissions where role_id = (select id from roles where name = ${role}) and permission_id = (select id from permissions where name = ${permission})`,
        );
        await primary.service.app.events.publishAndWait('role.permissions.changed', {});
      };
      /** What holder may do and see with read:profile (`profile`) and read:contact (`contact`) held or not. */
      const holds = (profileHeld: boolean, contact: boolean) => async (node: NodeRef) => {
        const me = await profile(node, holder);
        if (profileHeld) expectStatus(me, 200, `${node.name}: /user/me`);
        else expect(expectErrorEnvelope(me, 403).error_code, `${node.name}: /user/me`).toBe('authorization.error.forbidden');
        const phone = contact ? other.phone : null;
        expect((await on(node, holder).get(`/api/v1/content/${id}`)).body.data.uploader.phone, `${node.name}: detail`).toBe(phone);
        const page = await on(node, holder).get(`${CONTENT}/all?per_page=20`);
        expect(page.body.data.item.find((i: { id: string }) => i.id === id).uploader.phone_number, `${node.name}: /all`).toBe(phone);
      };

      await warm(holds(true, true));
      await setGrant('read:contact', false);
      await onEveryNode(holds(true, false));
      await warm(holds(true, false));
      await setGrant('read:profile', false);
      await onEveryNode(holds(false, false));
      await warm(holds(false, false));
      await setGrant('read:profile', true);
      await setGrant('read:contact', true);
      await onEveryNode(holds(true, true));
    });
  });

  describe('an edited item', () => {
    const edit = (names: { en: string; vi: string }, price: number, location = { latitude: HOME.latitude, longitude: HOME.longitude }) => ({
      price,
      area: 70,
      location,
      languages: {
        en: { projectName: names.en, description: 'Two bedrooms, river view', address: 'District 7, Ho Chi Minh City' },
        vi: { projectName: names.vi, description: 'Căn hộ 2 phòng ngủ, view sông', address: 'Quận 7, TP. Hồ Chí Minh' },
      },
    });
    const before = { en: 'Saigon Riverside Apartment', vi: 'Căn hộ Sài Gòn Riverside' };
    const after = { en: 'Riverside Apartment, renovated', vi: 'Căn hộ Riverside, đã sửa' };

    const shows = (id: string, price: number, names: { en: string; vi: string }) => async (node: NodeRef) =>
      eachView(node, id, (view, where) => {
        expect(view.item, where).toBeDefined();
        expect(view.item.price, where).toBe(price);
        expect(projectName(view), where).toBe(names[view.lang as 'en' | 'vi']);
      });

    it('should show the new price and project names in the detail, /all, /completed and /feeds on the next read', async () => {
      const id = world.items.edit;
      await warm(shows(id, 3_500_000_000, before));
      expectStatus(await world.owner.api.put(`/api/v1/content/${id}`, edit(after, 4_250_000_000)), 200, 'edit');
      await onEveryNode(shows(id, 4_250_000_000, after));
    });

    it('should drop an item moved elsewhere from the map viewport on the next read', async () => {
      const id = world.items.edit;
      const located = (inViewport: boolean, lat: number, long: number) => async (node: NodeRef) =>
        eachView(node, id, (view, where) => {
          if (view.label === '/completed (viewport)') expect(view.item !== undefined, where).toBe(inViewport);
          // The feed's abridged item has no geo: it only has to stay.
          else if (view.label.startsWith('/feeds')) expect(view.item, where).toBeDefined();
          else expect(view.item?.geo, where).toEqual({ lat, long });
        });
      await warm(located(true, HOME.latitude, HOME.longitude));
      expectStatus(await world.owner.api.put(`/api/v1/content/${id}`, edit(after, 4_250_000_000, ELSEWHERE)), 200, 'move');
      await onEveryNode(located(false, ELSEWHERE.latitude, ELSEWHERE.longitude));
    });
  });

  describe('a deleted item', () => {
    it('should answer 404 for its detail and leave every first page on the next read', async () => {
      const id = world.items.remove;
      await warm(async (node) => {
        await eachView(node, id, (view, where) => expect(view.item, where).toBeDefined());
        expectStatus(await comments(node, id), 200, `${node.name}: comments`);
      });
      expectStatus(await world.owner.api.delete(`/api/v1/content/${id}`), 200, 'delete');
      await onEveryNode(async (node) => {
        await eachView(node, id, (view, where) => {
          expect(view.item, where).toBeUndefined();
          if (view.label.startsWith('detail')) expect(view.status, where).toBe(404);
        });
        const detail = await on(node, world.owner).get(`/api/v1/content/${id}`);
        expect(expectErrorEnvelope(detail, 404).error_code, `${node.name}: the owner's detail`).toBe('content.error.not_found');
        expectStatus(await comments(node, id), 404, `${node.name}: comments`);
        expectStatus(await on(node, world.follower).post(`/api/v1/content/${id}/reactions`), 404, `${node.name}: reacting`);
      });
    });
  });

  describe('reactions', () => {
    const reactions = (id: string, count: number) => async (node: NodeRef) =>
      eachView(node, id, (view, where) => expect(view.item?.reaction_count, where).toBe(count));

    it('should change reaction_count everywhere on the next read after a like and after an unlike', async () => {
      const id = world.items.react;
      await warm(reactions(id, 0));
      const liked = await world.follower.api.post(`/api/v1/content/${id}/reactions`);
      expectStatus(liked, 200, 'like');
      expect(liked.body.data).toEqual({ reacted: true, reaction_count: 1 });
      await onEveryNode(reactions(id, 1));

      await warm(reactions(id, 1));
      const unliked = await world.follower.api.delete(`/api/v1/content/${id}/reactions`);
      expectStatus(unliked, 200, 'unlike');
      expect(unliked.body.data).toEqual({ reacted: false, reaction_count: 0 });
      await onEveryNode(reactions(id, 0));
    });
  });

  describe('comments', () => {
    const commented = (id: string, count: number, topLevel: { id: string; replies: number }[]) => async (node: NodeRef) => {
      await eachView(node, id, (view, where) => expect(view.item?.comment_count, where).toBe(count));
      const res = await comments(node, id);
      expectStatus(res, 200, `${node.name}: comments`);
      expect(
        res.body.data.comments.map((c: { _id: string; replyCount: number }) => ({ id: c._id, replies: c.replyCount })),
        node.name,
      ).toEqual(topLevel);
    };

    it('should change comment_count and the comment list on the next read after a comment and after a reply', async () => {
      const id = world.items.comment;
      await warm(commented(id, 0, []));
      const made = await world.follower.api.post('/sns/api/v1/comments', { contentId: id, msg: 'Is parking included?' });
      expectStatus(made, 201, 'comment');
      const commentId = made.body.data._id as string;
      await onEveryNode(commented(id, 1, [{ id: commentId, replies: 0 }]));

      const replies = (ids: string[]) => async (node: NodeRef) => {
        const res = await on(node, null).get(`/sns/api/v1/comments/${commentId}/replies`);
        expectStatus(res, 200, `${node.name}: replies`);
        expect(
          res.body.data.comments.map((c: { _id: string }) => c._id),
          node.name,
        ).toEqual(ids);
      };
      await warm(async (node) => {
        await commented(id, 1, [{ id: commentId, replies: 0 }])(node);
        await replies([])(node);
      });
      const reply = await world.owner.api.post('/sns/api/v1/comments', { contentId: id, msg: 'Yes, one space.', parentId: commentId });
      expectStatus(reply, 201, 'reply');
      await onEveryNode(async (node) => {
        await commented(id, 2, [{ id: commentId, replies: 1 }])(node);
        await replies([reply.body.data._id])(node);
      });
    });
  });

  describe('follows', () => {
    /** The counts, is_following and the feed order of viewer and followed, following or not. */
    const following = (yes: boolean) => async (node: NodeRef) => {
      const { viewer, followed, items } = world;
      const n = yes ? 1 : 0;
      expect((await profileData(node, viewer)).following_number, `${node.name}: viewer's own`).toBe(n);
      expect((await profileData(node, followed)).follower_number, `${node.name}: followed's own`).toBe(n);
      expect(await profileData(node, viewer, followed.userId), `${node.name}: followed seen by viewer`).toMatchObject({
        follower_number: n,
        is_following: yes,
      });
      expect((await profileData(node, followed, viewer.userId)).following_number, `${node.name}: viewer seen by followed`).toBe(n);
      const feed = await feedIds(node, viewer);
      expect(feed, node.name).toEqual(expect.arrayContaining([items.followed, items.other]));
      // Followed uploaders' items lead the feed; otherwise the newer item (other's) comes first.
      if (yes) expect(feed[0], `${node.name}: feed`).toBe(items.followed);
      else expect(feed.indexOf(items.other), `${node.name}: feed`).toBeLessThan(feed.indexOf(items.followed));
    };

    it('should change both profiles, is_following and the feed order on the next read after a follow and after an unfollow', async () => {
      await warm(following(false));
      await follow(world.viewer, world.followed);
      await onEveryNode(following(true));

      await warm(following(true));
      await unfollow(world.viewer, world.followed);
      await onEveryNode(following(false));
    });
  });

  describe("another user's profile", () => {
    const BLOCK = (userId: string) => `/auth/api/v1/users/${userId}/block`;

    it('should drop is_following and the follower from the count on the next read after a block removes the follow', async () => {
      const primary = cluster().primary;
      const [fan, star] = [await registerAndLogin(primary), await registerAndLogin(primary)];
      await follow(fan, star);
      const seen = (following: boolean) => async (node: NodeRef) => {
        expect(await profileData(node, fan, star.userId), `${node.name}: star seen by fan`).toMatchObject({
          follower_number: following ? 1 : 0,
          is_following: following,
        });
        expect(await profileData(node, star, fan.userId), `${node.name}: fan seen by star`).toMatchObject({
          following_number: following ? 1 : 0,
          is_following: false,
        });
      };
      await warm(seen(true));
      // The one followed blocks: the follow goes both ways (CONTRACT §21), and nobody is told.
      expectStatus(await star.api.post(BLOCK(fan.userId)), 201, 'block');
      await onEveryNode(seen(false));
    });

    it('should answer concurrent readers of a profile alike, and every reader after a rename the new name', async () => {
      const primary = cluster().primary;
      const seen = await registerAndLogin(primary, { given_name: 'Cora', family_name: 'Crowd' });
      const readers = await Promise.all(Array.from({ length: 6 }, () => registerAndLogin(primary)));
      await follow(readers[0], seen);
      // Every reader at once, on each node (the first time: nothing kept yet), twice.
      const named = (name: string) => async (node: NodeRef) => {
        const answers = await Promise.all(readers.map((r) => profileData(node, r, seen.userId)));
        expect(
          answers.map((a) => a.name),
          node.name,
        ).toEqual(readers.map(() => name));
        expect(
          answers.map((a) => a.is_following),
          node.name,
        ).toEqual(readers.map((_, i) => i === 0));
        expect(
          answers.map((a) => a.follower_number),
          node.name,
        ).toEqual(readers.map(() => 1));
      };
      await warm(named('Cora Crowd'));
      expectStatus(await seen.api.put('/auth/api/v1/user/me', { given_name: 'Clara' }), 200, 'rename');
      await onEveryNode(named('Clara Crowd'));
    });

    it('should show new roles to others on the next read', async () => {
      const user = await registerAndLogin(cluster().primary);
      const roles = (names: string[]) => async (node: NodeRef) =>
        expect((await profileData(node, world.follower, user.userId)).roles, `${node.name}: seen by another`).toEqual(names);
      await warm(roles(['end_user']));
      expectStatus(await world.admin.api.put(`${AUTHORIZATION}/users/${user.userId}/roles`, { role_names: ['end_user', 'moderator'] }), 200, 'assign');
      await onEveryNode(roles(['end_user', 'moderator']));
    });

    it('should answer 404 for a deleted account on the next read, and 400 for a user_id that is not an id', async () => {
      const leaving = await registerAndLogin(cluster().primary);
      await warm(async (node) => expect((await profileData(node, world.follower, leaving.userId)).sub, node.name).toBe(leaving.userId));
      expectStatus(await leaving.api.request('DELETE', '/auth/api/v1/user/me', { body: { password: leaving.password } }), 202, 'delete the account');
      await onEveryNode(async (node) => {
        expect(expectErrorEnvelope(await profile(node, world.follower, leaving.userId), 404).error_code, node.name).toBe('user.error.not_found');
        expectStatus(await profile(node, world.follower, 'not-an-id'), 400, `${node.name}: a user_id that is not an id`);
      });
    });
  });

  describe('feed pages after the first', () => {
    it("should leave out a blocked uploader's items on the next read, and show them again once unblocked", async () => {
      const reader = await registerAndLogin(cluster().primary);
      const id = world.items.other;
      const listed = (yes: boolean) => async (node: NodeRef) => {
        const ids = (await feedWalk(node, reader)).map((i: { id: string }) => i.id);
        expect(ids.includes(id), `${node.name}: ${ids.length} items`).toBe(yes);
        // Items of others stay (the walk does not end at the blocked uploader's item).
        expect(ids, node.name).toContain(world.items.edit);
      };
      await warm(listed(true));
      expectStatus(await reader.api.post(`/auth/api/v1/users/${world.other.userId}/block`), 201, 'block');
      await onEveryNode(listed(false));
      await warm(listed(false));
      expectStatus(await reader.api.delete(`/auth/api/v1/users/${world.other.userId}/block`), 200, 'unblock');
      await onEveryNode(listed(true));
    });

    it('should show a like, a deletion, a removal and a suspension in the pages of cursors issued before them, on the next read', async () => {
      const primary = cluster().primary;
      // The follower follows owner and (from here) suspended: their items lead the feed, newest first.
      const suspended = await registerAndLogin(primary);
      await follow(world.follower, suspended);
      const held = await publishItem(primary, suspended);
      const liked = await publishItem(primary, world.owner);
      const deleted = await publishItem(primary, world.owner);
      const removed = await publishItem(primary, world.owner);
      const pageOne = await publishItem(primary, world.owner);
      const cursorsOf = new Map<string, string[]>();
      await warm(async (node) => {
        const { items, cursors } = await feedWalkWithCursors(node, world.follower);
        expect(items[0].id, node.name).toBe(pageOne);
        cursorsOf.set(node.name, cursors);
        const again = await feedPagesAt(node, world.follower, cursors);
        expect(again.find((i) => i.id === liked)?.reaction_count, node.name).toBe(0);
        expect(
          again.map((i) => i.id),
          node.name,
        ).toEqual(expect.arrayContaining([deleted, removed, held]));
      });
      expectStatus(await world.viewer.api.post(`/api/v1/content/${liked}/reactions`), 200, 'like');
      expectStatus(await world.owner.api.delete(`/api/v1/content/${deleted}`), 200, 'delete');
      expectStatus(
        await world.admin.api.post(`/api/v1/moderation/targets/content/${removed}/resolve`, { action: 'remove', note: 'fake listing' }),
        200,
        'remove',
      );
      expectStatus(await world.admin.api.post(`/api/v1/moderation/targets/user/${suspended.userId}/resolve`, { action: 'suspend_user' }), 200, 'suspend');
      await onEveryNode(async (node) => {
        const again = await feedPagesAt(node, world.follower, cursorsOf.get(node.name)!);
        expect(again.find((i) => i.id === liked)?.reaction_count, `${node.name}: the liked item`).toBe(1);
        const ids = again.map((i) => i.id);
        expect(ids, `${node.name}: the deleted item`).not.toContain(deleted);
        expect(ids, `${node.name}: the removed item`).not.toContain(removed);
        expect(ids, `${node.name}: the suspended uploader's item`).not.toContain(held);
      });
    });

    it('should refuse a cursor this service did not issue with 400, every time', async () => {
      await onEveryNode(async (node) => {
        for (const cursor of ['bm90LWEtY3Vyc29y', 'not a cursor', 'x'.repeat(513)]) {
          const res = await on(node, world.follower).get(`${CONTENT}/feeds?cursor=${encodeURIComponent(cursor)}`);
          expect(res.status, `${node.name}: ${cursor.slice(0, 20)}`).toBe(400);
        }
      });
    });
  });

  describe("an uploader's profile change", () => {
    const named = (name: string) => async (node: NodeRef) => {
      const { renamed, follower, items } = world;
      expect((await profileData(node, renamed)).name, `${node.name}: own profile`).toBe(name);
      expect((await profileData(node, follower, renamed.userId)).name, `${node.name}: seen by a follower`).toBe(name);
      await eachView(node, items.renamed, (view, where) => expect(view.item?.uploader.name, where).toBe(name));
    };

    it("should show the new name in the profile and the uploader's items on the next read", async () => {
      await warm(named('Rita Before'));
      expectStatus(await world.renamed.api.put('/auth/api/v1/user/me', { given_name: 'Rosa' }), 200, 'rename');
      await onEveryNode(named('Rosa Before'));
    });

    it("should show the new avatar in the profile and the uploader's listed items on the next read", async () => {
      const { renamed, follower, items } = world;
      const path = (url: string | null | undefined) => (url ? new URL(url).pathname : url);
      const pictured = (picture: string | null) => async (node: NodeRef) => {
        expect(path((await profileData(node, renamed)).picture), `${node.name}: own profile`).toBe(picture);
        expect(path((await profileData(node, follower, renamed.userId)).picture), `${node.name}: seen by a follower`).toBe(picture);
        await eachView(node, items.renamed, (view, where) => {
          // The detail names the uploader without an avatar (SPEC §4.3).
          if (!view.label.startsWith('detail')) expect(path(view.item?.uploader.avatar), where).toBe(picture);
        });
      };
      await warm(pictured(null));
      const form = avatarForm(await makeImage('png', 32, 32), 'me.png', 'image/png');
      const res = await putAvatar(renamed.api, form, { 'x-user-id': renamed.userId, 'x-user-username': renamed.username });
      expectStatus(res, 200, 'avatar');
      await onEveryNode(pictured(path(res.body.data.picture) as string));
    });
  });

  describe('a newly published item', () => {
    it('should show in the detail and every first page on the next read once its video is processed', async () => {
      const id = await createContent(world.owner);
      await warm(async (node) => {
        await eachView(node, id, (view, where) => expect(view.item, where).toBeUndefined());
        // Not published yet: hidden from anonymous readers (401) and from other users (404).
        expect(expectErrorEnvelope(await on(node, null).get(`/api/v1/content/${id}`), 401).error_code, node.name).toBe('content.error.restricted');
      });
      await finishProcessing(cluster().primary, id, world.owner);
      await onEveryNode(async (node) =>
        eachView(node, id, (view, where) => {
          expect(view.item?.id, where).toBe(id);
          expect(view.item.video.url, where).toMatch(/\/hls\/index\.m3u8$/);
        }),
      );
    });
  });
}
