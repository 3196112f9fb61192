// Roles and permissions (SPEC §4.2): shapes, each documented status, bad input, and that a new
// permission granted through a new role takes effect.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, loginAdmin, registerAndLogin, type TestUser } from '../helpers/api.js';

const base = '/authorization/api/v1';
const booted = useTestServer();
let server: TestServer;
let admin: TestUser;
let user: TestUser;
let anonymous: ApiClient;

beforeAll(async () => {
  server = booted.current;
  admin = await loginAdmin(server);
  user = await registerAndLogin(server);
  anonymous = new ApiClient(server.url);
});

const isoTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let counter = 0;
const unique = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${counter++}`.replace(/[0-9]/g, (d) => 'abcdefghij'[Number(d)]);

function expectPermission(p: any) {
  expect(Object.keys(p).sort()).toEqual(['_id', 'created_at', 'description', 'is_active', 'name']);
  expect(p._id).toMatch(uuid);
  expect(p.name).toMatch(/^[a-z_]+:[a-z_]+$/);
  expect(typeof p.description).toBe('string');
  expect(typeof p.is_active).toBe('boolean');
  expect(p.created_at).toMatch(isoTime);
}

function expectRole(r: any) {
  expect(Object.keys(r).sort()).toEqual(['_id', 'created_at', 'description', 'is_active', 'name', 'permission_ids', 'permission_names']);
  expect(r._id).toMatch(uuid);
  expect(typeof r.name).toBe('string');
  expect(typeof r.description).toBe('string');
  expect(Array.isArray(r.permission_ids)).toBe(true);
  expect(r.permission_names).toHaveLength(r.permission_ids.length);
  expect(typeof r.is_active).toBe('boolean');
  expect(r.created_at).toMatch(isoTime);
}

describe('GET /permissions', () => {
  it('is public and lists every seeded permission', async () => {
    const res = await anonymous.get(`${base}/permissions`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const { permission_names, permissions } = res.body.data;
    expect(permission_names).toContain('create:role');
    expect(permission_names).toContain('create:content');
    expect(permission_names).toEqual(permissions.map((p: any) => p.name));
    permissions.forEach(expectPermission);
  });

  it('filters by one role name', async () => {
    const endUser = (await anonymous.get(`${base}/permissions?role_names=end_user`)).body.data.permission_names;
    expect(endUser).toContain('create:content');
    expect(endUser).not.toContain('create:role');
    const adminOnly = (await anonymous.get(`${base}/permissions?role_names=admin`)).body.data.permission_names;
    expect(adminOnly).toContain('create:role');
  });

  it('filters by comma-separated role names, blanks and unknown names ignored, each permission once', async () => {
    const adminOnly = (await anonymous.get(`${base}/permissions?role_names=admin`)).body.data.permission_names;
    const both = await anonymous.get(`${base}/permissions?role_names=${encodeURIComponent('end_user, ,no_such_role,admin')}`);
    expect(both.status).toBe(200);
    expect(both.body.data.permission_names).toEqual(adminOnly);
    expect(new Set(both.body.data.permission_names).size).toBe(both.body.data.permission_names.length);
  });

  it('answers no permissions for an unknown role name', async () => {
    const none = await anonymous.get(`${base}/permissions?role_names=no_such_role`);
    expect(none.body.data).toEqual({ permission_names: [], permissions: [] });
  });
});

describe('POST /permissions', () => {
  it('should fail without a token', async () => {
    expectErrorEnvelope(await anonymous.post(`${base}/permissions`, { name: 'read:thing', description: 'x' }), 401);
  });

  it('should fail with a bad token', async () => {
    expectErrorEnvelope(await anonymous.post(`${base}/permissions`, { name: 'read:thing', description: 'x' }, { token: 'not.a.jwt' }), 401);
  });

  it('should fail with 403 for a normal user', async () => {
    const res = await user.api.post(`${base}/permissions`, { name: 'read:thing', description: 'x' });
    expectErrorEnvelope(res, 403, 'authorization.error');
  });

  it('should fail when the name exists', async () => {
    const res = await admin.api.post(`${base}/permissions`, { name: 'create:content', description: 'again' });
    const err = expectErrorEnvelope(res, 400, 'authorization.error.permission_exists');
    expect(err.details).toEqual({ field: 'name', constraint: 'unique' });
  });

  it.each([
    ['no colon', { name: 'readthing', description: 'x' }, 'name'],
    ['upper case', { name: 'Read:Thing', description: 'x' }, 'name'],
    ['two colons', { name: 'read:thing:more', description: 'x' }, 'name'],
    ['empty noun', { name: 'read:', description: 'x' }, 'name'],
    ['digits', { name: 'read1:thing', description: 'x' }, 'name'],
    ['missing description', { name: 'read:thing' }, 'description'],
    ['empty description', { name: 'read:thing', description: '  ' }, 'description'],
    ['name not a string', { name: 42, description: 'x' }, 'name'],
    ['description not a string', { name: 'read:thing', description: ['x'] }, 'description'],
    ['too long', { name: `read:${'a'.repeat(80)}`, description: 'x' }, 'name'],
    ['unknown field', { name: 'read:thing', description: 'x', is_active: false }, 'is_active'],
  ])('should fail with invalid input: %s', async (_label, body, field) => {
    const res = await admin.api.post(`${base}/permissions`, body);
    const err = expectErrorEnvelope(res, 400, 'validation.error');
    expect(err.details?.field).toBe(field);
  });

  it('should fail with a body that is not an object', async () => {
    expectErrorEnvelope(await admin.api.post(`${base}/permissions`, ['read:thing']), 400);
  });

  it('should fail without a body', async () => {
    expectErrorEnvelope(await admin.api.request('POST', `${base}/permissions`), 400);
  });

  it('creates a permission (201) for a caller holding create:permission', async () => {
    const name = `${unique('audit')}:report`;
    const res = await admin.api.post(`${base}/permissions`, { name, description: 'Read audit reports' });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expectPermission(res.body.data);
    expect(res.body.data).toMatchObject({ name, description: 'Read audit reports', is_active: true });
    const listed = (await anonymous.get(`${base}/permissions`)).body.data.permission_names;
    expect(listed).toContain(name);
  });
});

describe('GET /roles', () => {
  it('should fail without a token', async () => {
    expectErrorEnvelope(await anonymous.get(`${base}/roles`), 401);
  });

  it('should fail with 403 for a normal user', async () => {
    expectErrorEnvelope(await user.api.get(`${base}/roles`), 403, 'authorization.error');
  });

  it('lists roles with permission ids and names for a caller holding read:role', async () => {
    const res = await admin.api.get(`${base}/roles`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const items: any[] = res.body.data.items;
    items.forEach(expectRole);
    const names = items.map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(['end_user', 'broker', 'admin']));
    const adminRole = items.find((r) => r.name === 'admin');
    expect(adminRole.permission_names).toContain('create:role');

    // permission_ids and permission_names describe the same permissions, in the same order.
    const all = (await anonymous.get(`${base}/permissions`)).body.data.permissions as any[];
    const nameById = new Map(all.map((p) => [p._id, p.name]));
    expect(adminRole.permission_ids.map((id: string) => nameById.get(id))).toEqual(adminRole.permission_names);
  });
});

describe('POST /roles', () => {
  async function permissionIds(...names: string[]): Promise<string[]> {
    const all = (await anonymous.get(`${base}/permissions`)).body.data.permissions as any[];
    return names.map((n) => all.find((p) => p.name === n)._id);
  }

  it('should fail without a token', async () => {
    expectErrorEnvelope(await anonymous.post(`${base}/roles`, { name: 'sneaky', permission_ids: [] }), 401);
  });

  it('should fail with 403 for a normal user, creating nothing', async () => {
    expectErrorEnvelope(await user.api.post(`${base}/roles`, { name: 'sneaky', permission_ids: [] }), 403, 'authorization.error');
    const roles = (await admin.api.get(`${base}/roles`)).body.data.items.map((r: any) => r.name);
    expect(roles).not.toContain('sneaky');
  });

  it('should fail when the name exists', async () => {
    const res = await admin.api.post(`${base}/roles`, { name: 'broker', permission_ids: [] });
    const err = expectErrorEnvelope(res, 400, 'authorization.error.role_exists');
    expect(err.details?.field).toBe('name');
  });

  it('should fail with a permission id that is not a uuid, naming it and creating nothing', async () => {
    const notUuid = await admin.api.post(`${base}/roles`, { name: unique('ghost'), permission_ids: ['not-an-id'] });
    expect(expectErrorEnvelope(notUuid, 400).message).toContain('not-an-id');
    const roles = (await admin.api.get(`${base}/roles`)).body.data.items.map((r: any) => r.name);
    expect(roles.some((n: string) => n.startsWith('ghost'))).toBe(false);
  });

  it('should fail naming an unknown permission id, creating nothing', async () => {
    const [known] = await permissionIds('create:content');
    const missing = '3f1c2b9e-8a4d-4c1e-9b7a-5d6e7f8a9b0c';
    const res = await admin.api.post(`${base}/roles`, { name: unique('ghost'), permission_ids: [known, missing] });
    const err = expectErrorEnvelope(res, 400, 'authorization.error.unknown_permission');
    expect(err.message).toContain(missing);
    expect(err.details?.field).toBe('permission_ids.1');
    const roles = (await admin.api.get(`${base}/roles`)).body.data.items.map((r: any) => r.name);
    expect(roles.some((n: string) => n.startsWith('ghost'))).toBe(false);
  });

  it.each([
    ['missing name', { permission_ids: [] }, 'name'],
    ['missing permission_ids', { name: 'lonely_role' }, 'permission_ids'],
    ['permission_ids not an array', { name: 'lonely_role', permission_ids: 'abc' }, 'permission_ids'],
    ['permission id not a string', { name: 'lonely_role', permission_ids: [1] }, 'permission_ids.0'],
    ['name with spaces', { name: 'bad role', permission_ids: [] }, 'name'],
    ['name not a string', { name: { x: 1 }, permission_ids: [] }, 'name'],
    ['description not a string', { name: 'lonely_role', description: 5, permission_ids: [] }, 'description'],
    ['too many ids', { name: 'lonely_role', permission_ids: Array.from({ length: 201 }, () => 'x') }, 'permission_ids'],
  ])('should fail with invalid input: %s', async (_label, body, field) => {
    const res = await admin.api.post(`${base}/roles`, body);
    const err = expectErrorEnvelope(res, 400, 'validation.error');
    expect(err.details?.field).toBe(field);
  });

  it('creates a role (201) granting existing permissions', async () => {
    const ids = await permissionIds('create:content', 'create:comment');
    const name = unique('moderator');
    const res = await admin.api.post(`${base}/roles`, { name, description: 'Moderates comments', permission_ids: ids });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expectRole(res.body.data);
    expect(res.body.data).toMatchObject({ name, description: 'Moderates comments', is_active: true });
    expect([...res.body.data.permission_names].sort()).toEqual(['create:comment', 'create:content']);
    expect([...res.body.data.permission_ids].sort()).toEqual([...ids].sort());

    const listed = (await admin.api.get(`${base}/roles`)).body.data.items.find((r: any) => r.name === name);
    expect(listed).toEqual(res.body.data);
  });

  it('accepts a role without description or permissions', async () => {
    const res = await admin.api.post(`${base}/roles`, { name: unique('empty'), permission_ids: [] });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ description: '', permission_ids: [], permission_names: [] });
  });

  it('makes a newly created permission effective through a new role', async () => {
    const permissionName = `${unique('approve')}:listing`;
    const created = await admin.api.post(`${base}/permissions`, { name: permissionName, description: 'Approve listings' });
    expect(created.status).toBe(201);
    const roleName = unique('reviewer');
    const role = await admin.api.post(`${base}/roles`, { name: roleName, permission_ids: [created.body.data._id] });
    expect(role.status).toBe(201);
    expect(role.body.data.permission_names).toEqual([permissionName]);

    const effective = await anonymous.get(`${base}/permissions?role_names=${roleName}`);
    expect(effective.status).toBe(200);
    expect(effective.body.data.permission_names).toEqual([permissionName]);
    expect(effective.body.data.permissions[0]._id).toBe(created.body.data._id);
  });
});
