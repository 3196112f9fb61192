// POST/DELETE /users/:userId/follow over the real server, and the follow.created event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootServer, type TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import type { DomainEvents } from '../../src/shared/events.js';
import { AUTH, avatarForm, makeImage, putAvatar } from './fixtures.js';

let server: TestServer;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  server = await bootServer();
  alice = await registerAndLogin(server, { given_name: 'Alice', family_name: 'Vo' });
  bob = await registerAndLogin(server, { given_name: 'Bob', family_name: 'Do' });
});
afterAll(async () => {
  await server?.close();
});

const followPath = (id: string) => `${AUTH}/users/${id}/follow`;
const follow = (from: TestUser, to: string, xUserId: string | null = from.userId) =>
  from.api.post(followPath(to), undefined, { headers: xUserId === null ? {} : { 'x-user-id': xUserId } });
const unfollow = (from: TestUser, to: string, headers: Record<string, string> = {}) => from.api.delete(followPath(to), { headers });
const UNKNOWN = '3f1c2a4e-8b7d-4c6e-9a1b-2c3d4e5f6a7b';

describe('POST /users/:userId/follow', () => {
  it('answers the follow record and publishes follow.created with the follower name and avatar', async () => {
    const upload = await putAvatar(alice.api, avatarForm(await makeImage('png', 20, 20), 'a.png'), { 'x-user-id': alice.userId, 'x-user-username': alice.username });
    expect(upload.status).toBe(200);
    const events: DomainEvents['follow.created'][] = [];
    const stop = server.service.app.events.subscribe('follow.created', (e) => void events.push(e));
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
    expect((await bob.api.get(`${AUTH}/user/me`)).body.data.follower_number).toBe(1);
    expect((await alice.api.get(`${AUTH}/user/me`)).body.data.following_number).toBe(1);
  });

  it('answers 400 when already following, for oneself, and for a malformed id', async () => {
    const carol = await registerAndLogin(server);
    expect((await follow(carol, bob.userId)).status).toBe(200);
    expectErrorEnvelope(await follow(carol, bob.userId), 400, 'follow.error.already_following');
    expectErrorEnvelope(await follow(carol, carol.userId), 400, 'follow.error.self_follow');
    const bad = expectErrorEnvelope(await follow(carol, 'not-a-uuid'), 400);
    expect(bad.details?.field).toBe('userId');
    expect((await bob.api.get(`${AUTH}/user/me?user_id=${carol.userId}`)).body.data.following_number).toBe(1);
  });

  it('answers 404 for an unknown user', async () => {
    expectErrorEnvelope(await follow(alice, UNKNOWN), 404, 'user.error.not_found');
  });

  it('requires X-User-ID naming the caller: 400 missing or malformed, 401 another user', async () => {
    const dave = await registerAndLogin(server);
    const missing = expectErrorEnvelope(await follow(dave, bob.userId, null), 400);
    expect(missing.details?.field).toBe('x-user-id');
    expectErrorEnvelope(await follow(dave, bob.userId, 'abc'), 400);
    expectErrorEnvelope(await follow(dave, bob.userId, alice.userId), 401, 'auth.error.identity_mismatch');
    // Nothing was recorded for anyone.
    expect((await dave.api.get(`${AUTH}/user/me`)).body.data.following_number).toBe(0);
    expect((await dave.api.get(`${AUTH}/user/me?user_id=${bob.userId}`)).body.data.is_following).toBe(false);
  });

  it('answers 401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).post(followPath(bob.userId), undefined, { headers: { 'x-user-id': alice.userId } }), 401);
  });
});

describe('DELETE /users/:userId/follow', () => {
  it('unfollows ({message}); a second time is 404 not_following', async () => {
    const erin = await registerAndLogin(server);
    expect((await follow(erin, alice.userId)).status).toBe(200);
    const res = await unfollow(erin, alice.userId, { 'x-user-id': erin.userId });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ message: expect.any(String) });
    expect((await erin.api.get(`${AUTH}/user/me?user_id=${alice.userId}`)).body.data.is_following).toBe(false);
    expectErrorEnvelope(await unfollow(erin, alice.userId), 404, 'follow.error.not_following');
    // Following again works after an unfollow.
    expect((await follow(erin, alice.userId)).status).toBe(200);
  });

  it('answers 400 for a malformed id, 401 for another X-User-ID or no token', async () => {
    const frank = await registerAndLogin(server);
    await follow(frank, bob.userId);
    expectErrorEnvelope(await unfollow(frank, 'nope'), 400);
    expectErrorEnvelope(await unfollow(frank, bob.userId, { 'x-user-id': alice.userId }), 401, 'auth.error.identity_mismatch');
    expectErrorEnvelope(await new ApiClient(server.url).delete(followPath(bob.userId)), 401);
    expect((await frank.api.get(`${AUTH}/user/me?user_id=${bob.userId}`)).body.data.is_following).toBe(true);
  });
});
