// Staff and their targets for the tests of whom staff may act on (CONTRACT §21): roles given and
// made through the role endpoints, as an administrator would.
import { expect } from 'vitest';
import type { TestUser } from '../helpers/api.js';

export const AUTHZ = '/authorization/api/v1';
export const AUDIT = '/api/v1/moderation/audit';
export const ME = '/auth/api/v1/user/me';
export const resolvePath = (type: string, id: string) => `/api/v1/moderation/targets/${type}/${id}/resolve`;
export const restorePath = (userId: string) => `/api/v1/moderation/users/${userId}/restore`;

let counter = 0;
/** A role name no other test uses: lower-case letters and underscores only. */
export const roleName = (prefix: string) => `${prefix}_${(Date.now() * 100 + counter++).toString(36).replace(/[0-9]/g, (d) => 'abcdefghij'[Number(d)])}`;

/** Gives `target` exactly `roleNames` (as `admin`). */
export async function giveRoles(admin: TestUser, target: TestUser, roleNames: string[]): Promise<void> {
  const res = await admin.api.put(`${AUTHZ}/users/${target.userId}/roles`, { role_names: roleNames });
  expect(res.status, res.text).toBe(200);
}

/** The names of the permissions the role `name` grants. */
export async function permissionsOfRole(admin: TestUser, name: string): Promise<string[]> {
  const res = await admin.api.get(`${AUTHZ}/roles`);
  expect(res.status, res.text).toBe(200);
  const role = (res.body.data.items as { name: string; permission_names: string[] }[]).find((r) => r.name === name);
  if (!role) throw new Error(`no role ${name}`);
  return role.permission_names;
}

/** Makes a role granting `permissionNames` through POST /roles; returns its name. */
export async function makeRole(admin: TestUser, prefix: string, permissionNames: string[]): Promise<string> {
  const listed = await admin.api.get(`${AUTHZ}/permissions`);
  expect(listed.status, listed.text).toBe(200);
  const ids = permissionNames.map((name) => {
    const permission = (listed.body.data.permissions as { _id: string; name: string }[]).find((p) => p.name === name);
    if (!permission) throw new Error(`no permission ${name}`);
    return permission._id;
  });
  const name = roleName(prefix);
  const res = await admin.api.post(`${AUTHZ}/roles`, { name, permission_ids: ids });
  expect(res.status, res.text).toBe(201);
  return name;
}

/** The audit entries about `targetId`, newest first (read as `reader`, who holds moderate:content). */
export async function auditAbout(reader: TestUser, targetId: string): Promise<{ actor_id: string; action: string; note: string }[]> {
  const res = await reader.api.get(`${AUDIT}?target_id=${targetId}&limit=100`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.items;
}
