// POST/DELETE /users/:userId/follow over the real server, and the follow.created event.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import type { DomainEvents } from '../../src/events.js';
import { AUTH, avatarForm, makeImage, putAvatar } from './fixtures.js';

const server = useTestServer();
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  alice = await registerAndLogin(server.current, { given_name: 'Alice', family_name: 'Vo' });
  bob = await registerAndLogin(server.current, { given_name: 'Bob', family_name: 'Do' });
});

const followPath = (id: string) => `${AUTH}/users/${id}/follow`;
const follow = (from: TestUser, to: string, xUserId: string | null = from.userId) =>
  from.api.post(followPath(to), undefined, { headers: xUserId === null ? {} : { 'x-user-id': xUserId } });
const unfollow = (from: TestUser, to: string, headers: Record<string, string> = {}) => from.api.delete(followPath(to), { headers });
const profileOf = (viewer: TestUser, userId?: string) => viewer.api.get(`${AUTH}/user/me${userId ? `?user_id=${userId}` : ''}`);
const UNKNOWN = '3f1c2a4e-8b7d-4c6e-9a1b-2c3d4e5f6a7b';

describe('POST /users/:userId/follow', () => {
  it('should fail with 401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).post(followPath(bob.userId), undefined, { headers: { 'x-user-id': alice.userId } }), 401);
  });

  it('should fail with 400 when X-User-ID is missing', async () => {
    const dave = await registerAndLogin(server.current);
    const missing = expectErrorEnvelope(await follow(dave, bob.userId, null), 400);
    expect(missing.details?.field).toBe('x-user-id');
    expect((await profileOf(dave)).body.data.following_number).toBe(0);
  });

  it('should fail with 400 when X-User-ID is malformed', async () => {
    const dave = await registerAndLogin(server.current);
    expectErrorEnvelope(await follow(dave, bob.userId, 'abc'), 400);
    expect((await profileOf(dave)).body.data.following_number).toBe(0);
  });

  it('should fail with 401 identity_mismatch when X-User-ID names another user', async () => {
    const dave = await registerAndLogin(server.current);
    expectErrorEnvelope(await follow(dave, bob.userId, alice.userId), 401, 'auth.error.identity_mismatch');
    // Nothing was recorded for anyone.
    expect((await profileOf(dave)).body.data.following_number).toBe(0);
    expect((await profileOf(dave, bob.userId)).body.data.is_following).toBe(false);
  });

  it('should fail with 400 for a malformed user id', async () => {
    const carol = await registerAndLogin(server.current);
    const bad = expectErrorEnvelope(await follow(carol, 'not-a-uuid'), 400);
    expect(bad.details?.field).toBe('userId');
  });

  it('should fail with 400 self_follow for oneself', async () => {
    const carol = await registerAndLogin(server.current);
    expectErrorEnvelope(await follow(carol, carol.userId), 400, 'follow.error.self_follow');
    expect((await profileOf(carol)).body.data.following_number).toBe(0);
  });

  it('should fail with 400 already_following the second time', async () => {
    const carol = await registerAndLogin(server.current);
    expect((await follow(carol, bob.userId)).status).toBe(200);
    expectErrorEnvelope(await follow(carol, bob.userId), 400, 'follow.error.already_following');
    expect((await profileOf(bob, carol.userId)).body.data.following_number).toBe(1);
  });

  it('should fail with 404 for an unknown user', async () => {
    expectErrorEnvelope(await follow(alice, UNKNOWN), 404, 'user.error.not_found');
  });

  it('should succeed with the follow record and publish follow.created with the follower name and avatar', async () => {
    const upload = await putAvatar(alice.api, avatarForm(await makeImage('png', 20, 20), 'a.png'), {
      'x-user-id': alice.userId,
      'x-user-username': alice.username,
    });
    expect(upload.status).toBe(200);
    const events: DomainEvents['follow.created'][] = [];
    const stop = server.current.service.app.events.subscribe('follow.created', (e) => void events.push(e));
    try {
      const res = await follow(alice, bob.userId);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toEqual({ follower_id: alice.userId, following_id: bob.userId, created_at: expect.any(String) });
      expect(new Date(res.body.data.created_at).toISOString()).toBe(res.body.data.created_at);
      expect(events).toEqual([{ ...res.body.data, follower: { name: 'Alice Vo', avatar: upload.body.data.picture } }]);
    } finally {
      stop();
    }
  });

  it('should count the follow in both profiles', async () => {
    const follower = await registerAndLogin(server.current);
    const followed = await registerAndLogin(server.current);
    expect((await follow(follower, followed.userId)).status).toBe(200);
    expect((await profileOf(followed)).body.data.follower_number).toBe(1);
    expect((await profileOf(follower)).body.data.following_number).toBe(1);
  });
});

describe('DELETE /users/:userId/follow', () => {
  it('should fail with 401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).delete(followPath(bob.userId)), 401);
  });

  it('should fail with 400 for a malformed user id', async () => {
    const frank = await registerAndLogin(server.current);
    expectErrorEnvelope(await unfollow(frank, 'nope'), 400);
  });

  it('should fail with 401 identity_mismatch when X-User-ID names another user', async () => {
    const frank = await registerAndLogin(server.current);
    await follow(frank, bob.userId);
    expectErrorEnvelope(await unfollow(frank, bob.userId, { 'x-user-id': alice.userId }), 401, 'auth.error.identity_mismatch');
    expect((await profileOf(frank, bob.userId)).body.data.is_following).toBe(true);
  });

  it('should fail with 404 not_following when there is no follow', async () => {
    const erin = await registerAndLogin(server.current);
    expectErrorEnvelope(await unfollow(erin, alice.userId), 404, 'follow.error.not_following');
  });

  it('should succeed with {message} and end the follow', async () => {
    const erin = await registerAndLogin(server.current);
    expect((await follow(erin, alice.userId)).status).toBe(200);
    const res = await unfollow(erin, alice.userId, { 'x-user-id': erin.userId });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ message: expect.any(String) });
    expect((await profileOf(erin, alice.userId)).body.data.is_following).toBe(false);
    expectErrorEnvelope(await unfollow(erin, alice.userId), 404, 'follow.error.not_following');
  });

  it('should succeed following again after an unfollow', async () => {
    const erin = await registerAndLogin(server.current);
    expect((await follow(erin, alice.userId)).status).toBe(200);
    expect((await unfollow(erin, alice.userId)).status).toBe(200);
    expect((await follow(erin, alice.userId)).status).toBe(200);
  });
});
