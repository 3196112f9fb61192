// A role change made on node A counts on node B from the user's next request (CONTRACT §21), the
// read model's caches included: node B has the user's session, profile and the roles' grants
// cached when the change is made. Two nodes on one PostgreSQL and one Redis (server mode only):
// node A in this process, node B a child process.
import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, loginAdmin, registerAndLogin } from '../helpers/api.js';
import { on, useTwoNodes } from '../read-model/cluster.js';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
const AUTHZ = '/authorization/api/v1';
const AUDIT = '/api/v1/moderation/audit';
const ME = '/auth/api/v1/user/me';

describe.skipIf(!enabled)('role changes on two nodes', () => {
  const cluster = useTwoNodes();

  it('holds an assignment made on node A at the next request on node B, and a role update too', async () => {
    const { primary, readers } = cluster();
    const [nodeB] = readers;
    const admin = await loginAdmin(primary);
    const holder = await registerAndLogin(primary);
    const onB = on(nodeB, holder);

    // Node B caches the session, the profile and the grants.
    expectErrorEnvelope(await onB.get(AUDIT), 403);
    expect((await onB.get(ME)).body.data.roles).toEqual(['end_user']);

    expect((await admin.api.put(`${AUTHZ}/users/${holder.userId}/roles`, { role_names: ['end_user', 'moderator'] })).status).toBe(200);
    expect((await onB.get(AUDIT)).status).toBe(200);
    expect((await onB.get(ME)).body.data).toMatchObject({ role: 'moderator', roles: ['end_user', 'moderator'] });

    // The moderator role loses moderate:content on node A: node B refuses at once.
    const roles = (await admin.api.get(`${AUTHZ}/roles`)).body.data.items;
    const moderator = roles.find((r: { name: string }) => r.name === 'moderator');
    const permissions = (await admin.api.get(`${AUTHZ}/permissions`)).body.data.permissions;
    const moderate = permissions.find((p: { name: string }) => p.name === 'moderate:content')._id;
    const without = moderator.permission_ids.filter((id: string) => id !== moderate);
    expect((await admin.api.put(`${AUTHZ}/roles/${moderator._id}`, { permission_ids: without })).status).toBe(200);
    expectErrorEnvelope(await onB.get(AUDIT), 403);

    expect((await admin.api.put(`${AUTHZ}/roles/${moderator._id}`, { permission_ids: moderator.permission_ids })).status).toBe(200);
    expect((await onB.get(AUDIT)).status).toBe(200);

    // Taken away again on node A: node B refuses.
    expect((await admin.api.put(`${AUTHZ}/users/${holder.userId}/roles`, { role_names: ['end_user'] })).status).toBe(200);
    expectErrorEnvelope(await onB.get(AUDIT), 403);
    expect((await onB.get(ME)).body.data).toMatchObject({ role: 'end_user', roles: ['end_user'] });
  });
});
