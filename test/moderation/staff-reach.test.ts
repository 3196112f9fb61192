// Whom staff may act on (CONTRACT §21, docs/moderation.md "Whom staff may act on"), over the real
// server: no staff action on a user (a decision on them or on what they wrote, a restore, a change
// of their roles, an edit or deletion of their item by someone else) may target a user holding a
// permission the actor lacks (403) or take something from the last active administrator (409);
// peers with the same permissions may act on each other; every refusal is in the audit log.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, login, loginAdmin, registerAndLogin, type TestUser } from '../helpers/api.js';
import { createContent } from '../sns/fixtures.js';
import { AUTHZ, ME, auditAbout, giveRoles, makeRole, permissionsOfRole, resolvePath, restorePath } from './staff.fixtures.js';

const CONTENT_ITEM = (id: string) => `/api/v1/content/${id}`;
const booted = useTestServer({ RATE_LIMIT_SCALE: '10000' });
let server: TestServer;
let admin: TestUser;

/** A fresh user holding exactly `roleNames`. */
async function holding(roleNames: string[]): Promise<TestUser> {
  const user = await registerAndLogin(server);
  await giveRoles(admin, user, roleNames);
  return user;
}

/** The user's token still works and the account can still sign in. */
async function expectActive(user: TestUser): Promise<void> {
  expect((await user.api.get(ME)).status).toBe(200);
  await login(server, user.phone, user.password);
}

beforeAll(async () => {
  server = booted.current;
  admin = await loginAdmin(server);
});

describe('a moderator and the administrator', () => {
  it('should refuse a moderator suspending the only administrator (403), who stays signed in, and audit the refusal', async () => {
    const moderator = await holding(['end_user', 'moderator']);
    const res = await moderator.api.post(resolvePath('user', admin.userId), { action: 'suspend_user', note: 'lock them out' });
    expectErrorEnvelope(res, 403, 'authorization.error.forbidden');
    expect(res.body.error_code).toBe('authorization.error.forbidden');
    await expectActive(admin);
    const [entry] = await auditAbout(admin, admin.userId);
    expect(entry).toMatchObject({ actor_id: moderator.userId, action: 'report.suspend_user.refused' });
    expect(entry.note).toContain('assign:role');
  });

  it("should refuse a moderator's warning of the administrator and removal of their content and restore of them (403)", async () => {
    const moderator = await holding(['end_user', 'moderator']);
    expectErrorEnvelope(await moderator.api.post(resolvePath('user', admin.userId), { action: 'warn' }), 403, 'authorization.error.forbidden');
    expectErrorEnvelope(await moderator.api.post(restorePath(admin.userId)), 403, 'authorization.error.forbidden');
    const item = await createContent(server, admin);
    expectErrorEnvelope(await moderator.api.post(resolvePath('content', item), { action: 'remove' }), 403, 'authorization.error.forbidden');
    expect((await new ApiClient(server.url).get(CONTENT_ITEM(item))).status).toBe(200);
    expect((await auditAbout(admin, item))[0]).toMatchObject({ actor_id: moderator.userId, action: 'report.remove.refused' });
  });

  it('should let a moderator suspend another moderator (same permissions) and an ordinary user', async () => {
    const [moderator, colleague, user] = await Promise.all([holding(['end_user', 'moderator']), holding(['end_user', 'moderator']), holding(['end_user'])]);
    expect((await moderator.api.post(resolvePath('user', colleague.userId), { action: 'suspend_user' })).status).toBe(200);
    expect((await moderator.api.post(resolvePath('user', user.userId), { action: 'suspend_user' })).status).toBe(200);
    expectErrorEnvelope(await colleague.api.get(ME), 401);
    // The ordinary user may not act back (no moderate:content), the colleague is gone anyway.
    expectErrorEnvelope(await user.api.get(ME), 401);
  });
});

describe('the last active administrator', () => {
  it('should refuse suspending the last active administrator (409), even by one holding every permission', async () => {
    const everything = await makeRole(admin, 'all_powers', await permissionsOfRole(admin, 'admin'));
    const deputy = await holding([everything]);
    const res = await deputy.api.post(resolvePath('user', admin.userId), { action: 'suspend_user' });
    expectErrorEnvelope(res, 409, 'authorization.error.last_admin');
    expect(res.body.error_code).toBe('authorization.error.last_admin');
    expectErrorEnvelope(await admin.api.post(resolvePath('user', admin.userId), { action: 'suspend_user' }), 409, 'authorization.error.last_admin');
    await expectActive(admin);
    expect((await auditAbout(admin, admin.userId))[0]).toMatchObject({ actor_id: admin.userId, action: 'report.suspend_user.refused' });
    // Dismissing reports about them takes nothing from them.
    expect((await deputy.api.post(resolvePath('user', admin.userId), { action: 'dismiss' })).status).toBe(200);
  });

  it('should count a suspended administrator as no administrator: the active one can be neither demoted nor suspended', async () => {
    const second = await holding(['admin']);
    expect((await admin.api.post(resolvePath('user', second.userId), { action: 'suspend_user' })).status).toBe(200);
    expectErrorEnvelope(await admin.api.put(`${AUTHZ}/users/${admin.userId}/roles`, { role_names: ['end_user'] }), 409, 'authorization.error.last_admin');
    expect((await auditAbout(admin, admin.userId))[0]).toMatchObject({ actor_id: admin.userId, action: 'role.assign.refused' });
    // A moderator cannot lift an administrator's suspension; an administrator can.
    const moderator = await holding(['end_user', 'moderator']);
    expectErrorEnvelope(await moderator.api.post(restorePath(second.userId)), 403, 'authorization.error.forbidden');
    expect((await admin.api.post(restorePath(second.userId))).status).toBe(200);
    await login(server, second.phone, second.password);
    await giveRoles(admin, second, ['end_user']);
    await expectActive(admin);
  });
});

describe('roles and content', () => {
  it('should refuse one who may assign roles giving themselves or anyone more than they hold, or changing an administrator', async () => {
    const keeperRole = await makeRole(admin, 'role_keeper', [...(await permissionsOfRole(admin, 'moderator')), 'assign:role']);
    const keeper = await holding([keeperRole]);
    const user = await holding(['end_user']);
    expectErrorEnvelope(
      await keeper.api.put(`${AUTHZ}/users/${keeper.userId}/roles`, { role_names: [keeperRole, 'admin'] }),
      403,
      'authorization.error.forbidden',
    );
    expectErrorEnvelope(
      await keeper.api.put(`${AUTHZ}/users/${admin.userId}/roles`, { role_names: ['admin', 'broker'] }),
      403,
      'authorization.error.forbidden',
    );
    expect((await keeper.api.get(ME)).body.data.roles).toEqual([keeperRole]);
    expect((await admin.api.get(ME)).body.data.roles).toEqual(['admin']);
    expect((await keeper.api.put(`${AUTHZ}/users/${user.userId}/roles`, { role_names: ['end_user', 'moderator'] })).status).toBe(200);
    expect((await auditAbout(admin, keeper.userId))[0]).toMatchObject({ actor_id: keeper.userId, action: 'role.assign.refused' });
  });

  it("should refuse one who may edit any content editing or deleting the administrator's item, not an ordinary user's", async () => {
    const editorRole = await makeRole(admin, 'any_editor', [...(await permissionsOfRole(admin, 'end_user')), 'update:any_content']);
    const editor = await holding([editorRole]);
    const user = await holding(['end_user']);
    const [adminItem, userItem] = await Promise.all([createContent(server, admin), createContent(server, user)]);
    const edit = {
      price: 1_234_000,
      area: 50,
      location: { latitude: 10.1, longitude: 106.1 },
      languages: { en: { projectName: 'edited', description: 'edited', address: 'x' } },
    };
    expectErrorEnvelope(await editor.api.put(CONTENT_ITEM(adminItem), edit), 403, 'authorization.error.forbidden');
    expectErrorEnvelope(await editor.api.delete(CONTENT_ITEM(adminItem)), 403, 'authorization.error.forbidden');
    const detail = await new ApiClient(server.url).get(CONTENT_ITEM(adminItem));
    expect(detail.status).toBe(200);
    expect(detail.body.data.price).not.toBe(1_234_000);
    expect((await auditAbout(admin, adminItem)).map((e) => e.action)).toEqual(['content.delete.refused', 'content.edit.refused']);
    expect((await editor.api.put(CONTENT_ITEM(userItem), edit)).status).toBe(200);
    expect((await editor.api.delete(CONTENT_ITEM(userItem))).status).toBe(200);
  });
});

describe('leaving', () => {
  // Last: on a service without the rule the administrator's account would be gone.
  it('should refuse the only active administrator deleting their account while the other one is suspended (409)', async () => {
    const second = await holding(['admin']);
    expect((await admin.api.post(resolvePath('user', second.userId), { action: 'suspend_user' })).status).toBe(200);
    expectErrorEnvelope(await admin.api.request('DELETE', ME, { body: { password: admin.password } }), 409, 'authorization.error.last_admin');
    await expectActive(admin);
    expect((await admin.api.post(restorePath(second.userId))).status).toBe(200);
    await giveRoles(admin, second, ['end_user']);
  });
});
