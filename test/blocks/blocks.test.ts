// POST/DELETE /auth/api/v1/users/:userId/block and GET /users/blocked over the real server
// (CONTRACT §21): refusals first, then the block itself, its idempotence, the follows it ends and
// the follow it refuses from then on, both ways.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { AUTH, UNKNOWN_USER, block, blockPath, blockedList, follow, profileOf, unblock } from './fixtures.js';

const server = useTestServer();
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  alice = await registerAndLogin(server.current, { given_name: 'Alice', family_name: 'Vo' });
  bob = await registerAndLogin(server.current, { given_name: 'Bob', family_name: 'Do' });
});

describe('block refusals', () => {
  it('should fail with 401 without a token, on every block endpoint', async () => {
    const anonymous = new ApiClient(server.url);
    expectErrorEnvelope(await anonymous.post(blockPath(bob.userId)), 401);
    expectErrorEnvelope(await anonymous.delete(blockPath(bob.userId)), 401);
    expectErrorEnvelope(await anonymous.get(`${AUTH}/users/blocked`), 401);
  });

  it('should fail with 400 for a malformed user id', async () => {
    const bad = expectErrorEnvelope(await block(alice, 'not-a-uuid'), 400);
    expect(bad.details?.field).toBe('userId');
    expectErrorEnvelope(await unblock(alice, '123'), 400);
  });

  it('should fail with 400 blocks.error.self_block for oneself', async () => {
    const carol = await registerAndLogin(server.current);
    expectErrorEnvelope(await block(carol, carol.userId), 400, 'blocks.error.self_block');
    expect((await blockedList(carol)).body.data.items).toEqual([]);
  });

  it('should fail with 404 for an unknown user', async () => {
    expectErrorEnvelope(await block(alice, UNKNOWN_USER), 404, 'user.error.not_found');
    expect((await blockedList(alice)).body.data.items.map((i: { user_id: string }) => i.user_id)).not.toContain(UNKNOWN_USER);
  });

  it('should fail with 400 for a bad list query (wrong types, huge values, a forged cursor)', async () => {
    expectErrorEnvelope(await blockedList(alice, '?limit=abc'), 400);
    expectErrorEnvelope(await blockedList(alice, '?limit=100000'), 400);
    expectErrorEnvelope(await blockedList(alice, '?cursor=not-ours'), 400, 'validation.error.invalid_cursor');
    expectErrorEnvelope(await blockedList(alice, `?cursor=${'x'.repeat(600)}`), 400);
  });
});

describe('blocking', () => {
  it('should answer 201 the first time, then 200 with the same record', async () => {
    const [carol, dan] = [await registerAndLogin(server.current), await registerAndLogin(server.current)];
    const first = await block(carol, dan.userId);
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({ user_id: dan.userId, blocked_at: expect.any(String) });
    const again = await block(carol, dan.userId);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
  });

  it('should list the blocked users newest first, with name and avatar, in cursor pages', async () => {
    const carol = await registerAndLogin(server.current);
    const others = [];
    for (let i = 0; i < 3; i++) others.push(await registerAndLogin(server.current, { given_name: `Other${i}`, family_name: 'X' }));
    for (const other of others) expect((await block(carol, other.userId)).status).toBe(201);
    const first = await blockedList(carol, '?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data.items).toEqual([
      { user_id: others[2].userId, name: 'Other2 X', avatar: null, blocked_at: expect.any(String) },
      { user_id: others[1].userId, name: 'Other1 X', avatar: null, blocked_at: expect.any(String) },
    ]);
    expect(first.body.data.next_cursor).toEqual(expect.any(String));
    const second = await blockedList(carol, `?limit=2&cursor=${first.body.data.next_cursor}`);
    expect(second.body.data.items.map((i: { user_id: string }) => i.user_id)).toEqual([others[0].userId]);
    expect(second.body.data.next_cursor).toBeNull();
    // Nobody else's list shows it, and the blocked users' own lists are empty.
    expect((await blockedList(others[0])).body.data.items).toEqual([]);
  });

  it('should lift a block with DELETE (200, also when there was none)', async () => {
    const [carol, dan] = [await registerAndLogin(server.current), await registerAndLogin(server.current)];
    expect((await block(carol, dan.userId)).status).toBe(201);
    const lifted = await unblock(carol, dan.userId);
    expect(lifted.status).toBe(200);
    expect(lifted.body.data).toEqual({ user_id: dan.userId, blocked: false });
    expect((await blockedList(carol)).body.data.items).toEqual([]);
    expect((await unblock(carol, dan.userId)).status).toBe(200);
    // Blocked again: a new record.
    expect((await block(carol, dan.userId)).status).toBe(201);
  });
});

describe('a block and follows', () => {
  it('should remove the follows both ways', async () => {
    const [carol, dan] = [await registerAndLogin(server.current), await registerAndLogin(server.current)];
    expect((await follow(carol, dan.userId)).status).toBe(200);
    expect((await follow(dan, carol.userId)).status).toBe(200);
    expect((await profileOf(carol)).body.data.following_number).toBe(1);
    expect((await block(carol, dan.userId)).status).toBe(201);
    expect((await profileOf(carol)).body.data.following_number).toBe(0);
    expect((await profileOf(carol)).body.data.follower_number).toBe(0);
    expect((await profileOf(dan)).body.data.following_number).toBe(0);
    expect((await profileOf(dan)).body.data.follower_number).toBe(0);
  });

  it('should refuse a follow either way with 400 follows.error.blocked, until the block is lifted', async () => {
    const [carol, dan] = [await registerAndLogin(server.current), await registerAndLogin(server.current)];
    expect((await block(carol, dan.userId)).status).toBe(201);
    expectErrorEnvelope(await follow(carol, dan.userId), 400, 'follows.error.blocked');
    expectErrorEnvelope(await follow(dan, carol.userId), 400, 'follows.error.blocked');
    expect((await profileOf(dan)).body.data.following_number).toBe(0);
    expect((await unblock(carol, dan.userId)).status).toBe(200);
    expect((await follow(dan, carol.userId)).status).toBe(200);
  });

  it('should not touch follows with third users', async () => {
    const [carol, dan, erin] = [await registerAndLogin(server.current), await registerAndLogin(server.current), await registerAndLogin(server.current)];
    expect((await follow(carol, erin.userId)).status).toBe(200);
    expect((await follow(erin, dan.userId)).status).toBe(200);
    expect((await block(carol, dan.userId)).status).toBe(201);
    expect((await profileOf(carol)).body.data.following_number).toBe(1);
    expect((await profileOf(erin)).body.data.following_number).toBe(1);
  });
});
