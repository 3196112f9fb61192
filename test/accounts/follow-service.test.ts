// FollowService tested directly: built in the test from its repositories over a fresh database
// (test/helpers/domain.ts), no HTTP server. Its rules: identity, never oneself, an existing user,
// once per pair; a follow and its `follow` notification are stored together, the followed user's
// settings can keep the notification out, and the events go out after the commit.
import { beforeAll, describe, expect, it } from 'vitest';
import { FollowService } from '../../src/follows/service.js';
import { SettingsService } from '../../src/settings/service.js';
import { newId } from '../../src/shared/ids.js';
import { published, useTestDomain, type TestDomain } from '../helpers/domain.js';

const opened = useTestDomain();
let domain: TestDomain;
let follows: FollowService;

beforeAll(() => {
  domain = opened.current;
  const { app, repositories } = domain;
  follows = new FollowService(app, repositories.follows, repositories.users, domain.notifications(), domain.blocks());
});

const inbox = (userId: string) => domain.notifications().list(userId, { limit: 100 });

describe('FollowService.follow refusals', () => {
  it('refuses with 401 auth.error.identity_mismatch when the claimed user id is another user', async () => {
    const [caller, other, target] = [await domain.createUser(), await domain.createUser(), await domain.createUser()];
    await expect(follows.follow(caller, other.userId, target.userId)).rejects.toMatchObject({ status: 401, code: 'auth.error.identity_mismatch' });
    expect(await domain.repositories.follows.followingIds(caller.userId, 10)).toEqual([]);
  });

  it('refuses with 400 follow.error.self_follow to follow oneself', async () => {
    const caller = await domain.createUser();
    await expect(follows.follow(caller, caller.userId, caller.userId)).rejects.toMatchObject({ status: 400, code: 'follow.error.self_follow' });
  });

  it('refuses with 404 user.error.not_found for a user who does not exist', async () => {
    const caller = await domain.createUser();
    await expect(follows.follow(caller, caller.userId, newId())).rejects.toMatchObject({ status: 404, code: 'user.error.not_found' });
  });

  it('refuses with 400 follow.error.already_following a second follow of the same user, and stores one follow and one notification', async () => {
    const [caller, target] = [await domain.createUser(), await domain.createUser()];
    await follows.follow(caller, caller.userId, target.userId);
    await expect(follows.follow(caller, caller.userId, target.userId)).rejects.toMatchObject({ status: 400, code: 'follow.error.already_following' });
    expect(await domain.repositories.follows.followingIds(caller.userId, 10)).toEqual([target.userId]);
    expect((await inbox(target.userId)).notifications.filter((n) => n.type === 'follow')).toHaveLength(1);
  });
});

describe('FollowService.follow', () => {
  it('stores the follow with a `follow` notification for the followed user and publishes follow.created', async () => {
    const [caller, target] = [await domain.createUser(), await domain.createUser()];
    const { result: record, events } = await published(domain, 'follow.created', () => follows.follow(caller, caller.userId, target.userId));
    expect(record).toMatchObject({ follower_id: caller.userId, following_id: target.userId });
    expect(events).toEqual([{ ...record, follower: { name: `Test ${caller.username}`, avatar: null } }]);
    const { notifications, unread_count } = await inbox(target.userId);
    expect(unread_count).toBe(1);
    expect(notifications[0]).toMatchObject({ type: 'follow', actor: { userId: caller.userId }, subject: { type: 'user', id: caller.userId } });
  });

  it('stores no notification for a user who turned content.in_app_notifications.new_followers off, but the follow still counts', async () => {
    const [caller, target] = [await domain.createUser(), await domain.createUser()];
    const settings = new SettingsService(domain.app, domain.repositories.settings, domain.repositories.users);
    await settings.update(target.userId, { content: { in_app_notifications: { new_followers: false } } });
    await follows.follow(caller, caller.userId, target.userId);
    expect(await domain.repositories.follows.followingIds(caller.userId, 10)).toEqual([target.userId]);
    expect((await inbox(target.userId)).notifications).toEqual([]);
  });
});

describe('FollowService.unfollow', () => {
  it('refuses with 404 follow.error.not_following a user the caller does not follow', async () => {
    const [caller, target] = [await domain.createUser(), await domain.createUser()];
    await expect(follows.unfollow(caller, undefined, target.userId)).rejects.toMatchObject({ status: 404, code: 'follow.error.not_following' });
  });

  it('refuses with 401 a claimed user id that is not the caller', async () => {
    const [caller, other, target] = [await domain.createUser(), await domain.createUser(), await domain.createUser()];
    await follows.follow(caller, caller.userId, target.userId);
    await expect(follows.unfollow(caller, other.userId, target.userId)).rejects.toMatchObject({ status: 401 });
    expect(await domain.repositories.follows.followingIds(caller.userId, 10)).toEqual([target.userId]);
  });

  it('removes the follow, publishes follow.deleted, and the user can be followed again', async () => {
    const [caller, target] = [await domain.createUser(), await domain.createUser()];
    await follows.follow(caller, caller.userId, target.userId);
    const { events } = await published(domain, 'follow.deleted', () => follows.unfollow(caller, caller.userId, target.userId));
    expect(events).toEqual([{ follower_id: caller.userId, following_id: target.userId }]);
    expect(await domain.repositories.follows.followingIds(caller.userId, 10)).toEqual([]);
    await expect(follows.follow(caller, caller.userId, target.userId)).resolves.toMatchObject({ following_id: target.userId });
  });
});
