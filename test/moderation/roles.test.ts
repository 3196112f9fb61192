// Role management (CONTRACT §21 "Roles"): PUT /users/{userId}/roles and PUT /roles/{id}, refusals
// first; then that a change counts from the holder's next request and next socket event (same
// token, no new login), the primary `role` and `roles` of /user/me, and the audit entries.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, loginAdmin, registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll, connect, emitAck } from '../realtime/socket-client.js';

const AUTHZ = '/authorization/api/v1';
const AUDIT = '/api/v1/moderation/audit';
const ME = '/auth/api/v1/user/me';
const booted = useTestServer();
let server: TestServer;
let admin: TestUser;
let user: TestUser;
let counter = 0;
/** A role name: lower-case letters only. */
const roleName = (prefix: string) => `${prefix}_${(Date.now() + counter++).toString(36).replace(/[0-9]/g, (d) => 'abcdefghij'[Number(d)])}`;

const rolesOf = (target: TestUser, roleNames: unknown) => admin.api.put(`${AUTHZ}/users/${target.userId}/roles`, { role_names: roleNames });
const allRoles = async (): Promise<{ _id: string; name: string; permission_ids: string[]; permission_names: string[]; is_active: boolean }[]> =>
  (await admin.api.get(`${AUTHZ}/roles`)).body.data.items;
const roleNamed = async (name: string) => {
  const role = (await allRoles()).find((r) => r.name === name);
  if (!role) throw new Error(`no role ${name}`);
  return role;
};
const permissionIds = async (...names: string[]): Promise<string[]> => {
  const { permissions } = (await admin.api.get(`${AUTHZ}/permissions`)).body.data;
  return names.map((n) => permissions.find((p: { name: string }) => p.name === n)._id);
};
const auditOf = async (targetId: string) => (await admin.api.get(`${AUDIT}?target_id=${targetId}`)).body.data.items;

beforeAll(async () => {
  server = booted.current;
  admin = await loginAdmin(server);
  user = await registerAndLogin(server);
});
afterAll(() => closeAll());

describe('PUT /users/{userId}/roles: refusals', () => {
  it('401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).put(`${AUTHZ}/users/${user.userId}/roles`, { role_names: ['broker'] }), 401);
  });

  it('403 without assign:role (an ordinary user, a moderator)', async () => {
    expectErrorEnvelope(await user.api.put(`${AUTHZ}/users/${user.userId}/roles`, { role_names: ['admin'] }), 403, 'authorization.error');
    const moderator = await registerAndLogin(server);
    expect((await rolesOf(moderator, ['moderator'])).status).toBe(200);
    expectErrorEnvelope(await moderator.api.put(`${AUTHZ}/users/${moderator.userId}/roles`, { role_names: ['admin'] }), 403, 'authorization.error');
  });

  it('400 for bad bodies and ids', async () => {
    for (const body of [
      {},
      { role_names: 'broker' },
      { role_names: [] },
      { role_names: [1] },
      { role_names: [''] },
      { role_names: ['x'.repeat(51)] },
      { role_names: Array.from({ length: 21 }, (_, i) => `r${i}`) },
      { role_names: ['broker'], extra: true },
    ]) {
      expectErrorEnvelope(await admin.api.put(`${AUTHZ}/users/${user.userId}/roles`, body), 400);
    }
    expectErrorEnvelope(await admin.api.put(`${AUTHZ}/users/not-a-uuid/roles`, { role_names: ['broker'] }), 400);
  });

  it('400 authorization.error.unknown_role naming the unknown role', async () => {
    const res = await rolesOf(user, ['broker', 'no_such_role']);
    const error = expectErrorEnvelope(res, 400);
    expect(error.error_code).toBe('authorization.error.unknown_role');
    expect(error.details?.field).toBe('role_names.1');
  });

  it('404 for an unknown user', async () => {
    const res = await admin.api.put(`${AUTHZ}/users/${randomUUID()}/roles`, { role_names: ['broker'] });
    expect(expectErrorEnvelope(res, 404).error_code).toBe('user.error.not_found');
  });

  it('409 authorization.error.last_admin when the only admin would lose the role', async () => {
    const res = await admin.api.put(`${AUTHZ}/users/${admin.userId}/roles`, { role_names: ['end_user'] });
    expect(expectErrorEnvelope(res, 409).error_code).toBe('authorization.error.last_admin');
    expect((await admin.api.get(ME)).body.data.role).toBe('admin');
  });
});

describe('PUT /roles/{id}: refusals', () => {
  let custom: { _id: string };
  beforeAll(async () => {
    custom = (await admin.api.post(`${AUTHZ}/roles`, { name: roleName('refused'), permission_ids: await permissionIds('read:profile') })).body.data;
  });

  it('401 without a token, 403 without update:role', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).put(`${AUTHZ}/roles/${custom._id}`, { is_active: false }), 401);
    expectErrorEnvelope(await user.api.put(`${AUTHZ}/roles/${custom._id}`, { is_active: false }), 403, 'authorization.error');
  });

  it('400 for bad bodies, an unknown role and an unknown permission', async () => {
    for (const body of [
      {},
      { is_active: 'no' },
      { permission_ids: 'x' },
      { description: 'x'.repeat(501) },
      { description: 5 },
      { is_active: true, other: 1 },
    ]) {
      expectErrorEnvelope(await admin.api.put(`${AUTHZ}/roles/${custom._id}`, body), 400);
    }
    expectErrorEnvelope(await admin.api.put(`${AUTHZ}/roles/not-a-uuid`, { is_active: true }), 400);
    const unknownRole = expectErrorEnvelope(await admin.api.put(`${AUTHZ}/roles/${randomUUID()}`, { is_active: true }), 400);
    expect(unknownRole.error_code).toBe('authorization.error.unknown_role');
    const unknownPermission = expectErrorEnvelope(await admin.api.put(`${AUTHZ}/roles/${custom._id}`, { permission_ids: [randomUUID()] }), 400);
    expect(unknownPermission.error_code).toBe('authorization.error.unknown_permission');
    expect(unknownPermission.details?.field).toBe('permission_ids.0');
  });

  it('409 last_admin when the admin role would be made inactive or lose assign:role / update:role', async () => {
    const adminRole = await roleNamed('admin');
    expect(expectErrorEnvelope(await admin.api.put(`${AUTHZ}/roles/${adminRole._id}`, { is_active: false }), 409).error_code).toBe(
      'authorization.error.last_admin',
    );
    const [updateRole] = await permissionIds('update:role');
    const without = adminRole.permission_ids.filter((id) => id !== updateRole);
    expect(expectErrorEnvelope(await admin.api.put(`${AUTHZ}/roles/${adminRole._id}`, { permission_ids: without }), 409).error_code).toBe(
      'authorization.error.last_admin',
    );
    const after = await roleNamed('admin');
    expect(after.is_active).toBe(true);
    expect(after.permission_ids.sort()).toEqual([...adminRole.permission_ids].sort());
  });
});

describe('assigning roles', () => {
  it('counts from the next request with the same token, shows role and roles on /user/me, and is audited', async () => {
    const holder = await registerAndLogin(server);
    expectErrorEnvelope(await holder.api.get(AUDIT), 403); // warms every cache of this session
    const me = (await holder.api.get(ME)).body.data;
    expect(me.role).toBe('end_user');
    expect(me.roles).toEqual(['end_user']);

    const res = await rolesOf(holder, ['end_user', 'moderator', 'end_user']);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ user_id: holder.userId, role_names: ['end_user', 'moderator'] });

    expect((await holder.api.get(AUDIT)).status).toBe(200);
    const after = (await holder.api.get(ME)).body.data;
    expect(after.role).toBe('moderator');
    expect(after.roles).toEqual(['end_user', 'moderator']);
    // Others see the same on the user's profile.
    expect((await user.api.get(`${ME}?user_id=${holder.userId}`)).body.data.roles).toEqual(['end_user', 'moderator']);

    const [entry] = await auditOf(holder.userId);
    expect(entry).toMatchObject({ actor_id: admin.userId, action: 'role.assign', target_type: 'user', target_id: holder.userId });
    expect(entry.note).toContain('moderator');

    expect((await rolesOf(holder, ['end_user'])).status).toBe(200);
    expectErrorEnvelope(await holder.api.get(AUDIT), 403);
    expect((await holder.api.get(ME)).body.data).toMatchObject({ role: 'end_user', roles: ['end_user'] });
  });

  it('makes the highest of admin, moderator, broker, end_user the primary role, else the first named', async () => {
    const holder = await registerAndLogin(server);
    const custom = roleName('primary');
    expect((await admin.api.post(`${AUTHZ}/roles`, { name: custom, permission_ids: await permissionIds('read:profile') })).status).toBe(201);
    for (const [names, primary] of [
      [['end_user', 'broker'], 'broker'],
      [[custom, 'end_user'], 'end_user'],
      [[custom], custom],
      [['broker', 'moderator'], 'moderator'],
    ] as [string[], string][]) {
      expect((await rolesOf(holder, names)).status).toBe(200);
      expect((await holder.api.get(ME)).body.data, names.join(',')).toMatchObject({ role: primary, roles: names });
    }
  });

  it('lets a second admin be demoted, and a promoted user act as admin at once', async () => {
    const second = await registerAndLogin(server);
    expect((await rolesOf(second, ['admin'])).status).toBe(200);
    expect((await second.api.get(`${AUTHZ}/roles`)).status).toBe(200);
    // Now two admins: the second may take it from itself.
    expect((await second.api.put(`${AUTHZ}/users/${second.userId}/roles`, { role_names: ['end_user'] })).status).toBe(200);
    expectErrorEnvelope(await second.api.get(`${AUTHZ}/roles`), 403);
  });

  it('counts from the next socket event of a connected socket', async () => {
    const [alice, bob] = await Promise.all([registerAndLogin(server), registerAndLogin(server)]);
    const room = (await alice.api.post('/sns/api/v1/chat/rooms', { memberIds: [bob.userId] })).body.data;
    const socket = await connect(server.url, '/chat', alice.token, 'websocket');
    expect(await emitAck(socket, 'message:send', { roomId: room.roomId, msg: 'before' })).toMatchObject({ ok: true });
    const noChat = roleName('nochat');
    expect((await admin.api.post(`${AUTHZ}/roles`, { name: noChat, permission_ids: await permissionIds('read:profile') })).status).toBe(201);
    expect((await rolesOf(alice, [noChat])).status).toBe(200);
    expect(await emitAck(socket, 'message:send', { roomId: room.roomId, msg: 'after' })).toMatchObject({
      ok: false,
      error_code: 'authorization.error.forbidden',
    });
    expect((await rolesOf(alice, ['end_user'])).status).toBe(200);
    expect(await emitAck(socket, 'message:send', { roomId: room.roomId, msg: 'again' })).toMatchObject({ ok: true });
  });
});

describe('updating a role', () => {
  it('changes what its holders may do from their next request, answers the role, and is audited', async () => {
    const name = roleName('editable');
    const role = (await admin.api.post(`${AUTHZ}/roles`, { name, permission_ids: await permissionIds('read:profile') })).body.data;
    const holder = await registerAndLogin(server);
    expect((await rolesOf(holder, [name])).status).toBe(200);
    expect((await holder.api.get(ME)).status).toBe(200);

    const emptied = await admin.api.put(`${AUTHZ}/roles/${role._id}`, { permission_ids: [], description: 'Nothing for now' });
    expect(emptied.status).toBe(200);
    expect(emptied.body.data).toMatchObject({ _id: role._id, name, description: 'Nothing for now', permission_ids: [], permission_names: [], is_active: true });
    expectErrorEnvelope(await holder.api.get(ME), 403);

    const regranted = await admin.api.put(`${AUTHZ}/roles/${role._id}`, { permission_ids: await permissionIds('read:profile', 'read:contact') });
    expect(regranted.body.data.permission_names).toEqual(['read:contact', 'read:profile']);
    expect((await holder.api.get(ME)).status).toBe(200);

    expect((await admin.api.put(`${AUTHZ}/roles/${role._id}`, { is_active: false })).body.data.is_active).toBe(false);
    expectErrorEnvelope(await holder.api.get(ME), 403);
    expect((await admin.api.put(`${AUTHZ}/roles/${role._id}`, { is_active: true })).body.data.is_active).toBe(true);
    expect((await holder.api.get(ME)).status).toBe(200);

    const entries = await auditOf(role._id);
    expect(entries.map((e: { action: string }) => e.action)).toEqual(['role.update', 'role.update', 'role.update', 'role.update', 'role.create']);
    expect(entries[0]).toMatchObject({ actor_id: admin.userId, target_type: 'role', target_id: role._id });
    expect(entries[3].note).toContain('revoked read:profile');
    expect(entries[2].note).toContain('granted');
  });

  it('lets the admin role lose a permission other than assign:role and update:role', async () => {
    const adminRole = await roleNamed('admin');
    const [readAnyStats] = await permissionIds('read:any_stats');
    const res = await admin.api.put(`${AUTHZ}/roles/${adminRole._id}`, { permission_ids: adminRole.permission_ids.filter((id) => id !== readAnyStats) });
    expect(res.status).toBe(200);
    expect(res.body.data.permission_names).not.toContain('read:any_stats');
    expect((await admin.api.put(`${AUTHZ}/roles/${adminRole._id}`, { permission_ids: adminRole.permission_ids })).body.data.permission_names).toContain(
      'read:any_stats',
    );
  });
});

describe('two admins demoting each other at once', () => {
  // The loser is refused 409 when both changes run at once (their transactions overlap), or 403
  // when the winner's change has already taken assign:role from it (one after the other).
  it('lets exactly one succeed: there is always an admin left', async () => {
    const second = await registerAndLogin(server);
    expect((await rolesOf(second, ['admin'])).status).toBe(200);
    const [first, other] = await Promise.all([
      admin.api.put(`${AUTHZ}/users/${second.userId}/roles`, { role_names: ['end_user'] }),
      second.api.put(`${AUTHZ}/users/${admin.userId}/roles`, { role_names: ['end_user'] }),
    ]);
    const refused = first.status === 200 ? other : first;
    expect(first.status === 200 || other.status === 200, `${first.status} ${other.status}`).toBe(true);
    expect([403, 409]).toContain(refused.status);
    expect(['authorization.error.last_admin', 'authorization.error.forbidden']).toContain(expectErrorEnvelope(refused, refused.status).error_code);
    // Whoever is still admin gives the seeded administrator the role back.
    const stillAdmin = first.status === 200 ? admin : second;
    expect((await stillAdmin.api.put(`${AUTHZ}/users/${admin.userId}/roles`, { role_names: ['admin'] })).status).toBe(200);
    expect((await admin.api.get(ME)).body.data.role).toBe('admin');
  });
});
