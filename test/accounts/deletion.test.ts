// Deleting one's account (CONTRACT §22) over the real server: the refusals, what holds at once
// (sessions and sockets end, login answers as for an unknown number, the number registers again,
// profile and content 404 to others, comments, messages and listings forget the user), and what the
// erasure job leaves: nothing of the user readable by anyone, media files gone, payments kept.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { authenticator } from 'otplib';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ADMIN_PASSWORD } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, lastCode, loginAdmin, registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll, connect, disconnected } from '../realtime/socket-client.js';
import { CONTENT, publish } from '../content/fixtures.js';
import { topUp } from '../campaigns/fixtures.js';
import { storedMedia } from '../helpers/stored-media.js';

const ME = '/auth/api/v1/user/me';
const SNS = '/sns/api/v1';
const CHAT = `${SNS}/chat`;

const booted = useTestServer({ SCHEDULER_ENABLED: 'false', VIDEO_WORKERS: '0' });
let server: TestServer;
beforeAll(() => {
  server = booted.current;
});
afterEach(() => closeAll());
afterAll(() => closeAll());

const deleteAccount = (user: TestUser | ApiClient, body: unknown) => ('api' in user ? user.api : user).request('DELETE', ME, { body });

async function erasureOf(userId: string): Promise<{ steps_done: string[]; finished_at: Date | null } | undefined> {
  const [row] = await server.service.app.database.rows<{ steps_done: string[]; finished_at: Date | null }>(
    sql`select steps_done, finished_at from account_erasures where user_id = ${userId}`,
  );
  return row;
}

async function untilErased(userId: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await erasureOf(userId))?.finished_at) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the erasure did not finish');
}

describe('DELETE /auth/api/v1/user/me: refusals', () => {
  it('should answer 401 without a token', async () => {
    expectErrorEnvelope(await deleteAccount(new ApiClient(server.url), { password: 'whatever-1' }), 401);
  });

  it('should answer 400 to bad bodies and keep the account', async () => {
    const user = await registerAndLogin(server);
    for (const body of [
      undefined,
      {},
      { password: 12345678 },
      { password: '' },
      { password: 'x'.repeat(10_000) },
      { password: user.password, extra: 1 },
      { password: user.password, two_factor_code: 5 },
    ]) {
      expectErrorEnvelope(await deleteAccount(user, body), 400);
    }
    expect((await user.api.get(ME)).status).toBe(200);
  });

  it('should answer 400 auth.error.invalid_password to a wrong password and keep the account', async () => {
    const user = await registerAndLogin(server);
    const wrong = expectErrorEnvelope(await deleteAccount(user, { password: 'not-the-password' }), 400, 'auth.error.invalid_password');
    expect(wrong.details?.field).toBe('password');
    expect((await user.api.get(ME)).status).toBe(200);
  });

  it('should answer 401 auth.error.two_factor_required without a code when two-factor is on, and accept a backup code', async () => {
    const user = await registerAndLogin(server);
    const enabled = await user.api.post('/content/api/v1/auth/2fa/toggle', { action: 'enable', current_password: user.password, phone_number: user.phone });
    expect(enabled.status, enabled.text).toBe(200);
    const secret = new URL(enabled.body.data.otpauth_url).searchParams.get('secret')!;
    expectErrorEnvelope(await deleteAccount(user, { password: user.password }), 401, 'auth.error.two_factor_required');
    const wrongCode = authenticator.generate(secret) === '000000' ? '111111' : '000000';
    expectErrorEnvelope(await deleteAccount(user, { password: user.password, two_factor_code: wrongCode }), 401, 'auth.error.invalid_two_factor_code');
    expect((await user.api.get(ME)).status).toBe(200);
    const res = await deleteAccount(user, { password: user.password, two_factor_code: enabled.body.data.backup_codes[0] });
    expect(res.status, res.text).toBe(202);
  });

  it('should answer 409 to the last active administrator', async () => {
    const admin = await loginAdmin(server);
    const res = expectErrorEnvelope(await deleteAccount(admin, { password: ADMIN_PASSWORD }), 409);
    expect(res.error_code).toBe('authorization.error.last_admin');
    expect((await admin.api.get(ME)).status).toBe(200);
  });
});

describe('DELETE /auth/api/v1/user/me: at once, and after the erasure', () => {
  it('should leave nothing of the user readable by anyone, free the number, and keep the payments', { timeout: 90_000 }, async () => {
    const alice = await registerAndLogin(server, { given_name: 'Alice', family_name: 'Leaving' });
    const bob = await registerAndLogin(server);
    const stored = storedMedia(server.service);

    // What Alice leaves behind: an item with a media file, a comment and a reaction on Bob's item,
    // a message to Bob, follows both ways, a saved search, an avatar file, a payment.
    const aliceItem = await publish(server, alice);
    const itemFile = `content/${aliceItem}/original.mp4`;
    await stored.write(itemFile, 'video bytes');
    const avatarFile = `avatars/${alice.userId}/a.webp`;
    await stored.write(avatarFile, 'image bytes');
    const bobItem = await publish(server, bob);
    const comment = await alice.api.post(`${SNS}/comments`, { contentId: bobItem, msg: 'A comment by Alice' });
    expect(comment.status, comment.text).toBe(201);
    expect((await alice.api.post(`/api/v1/content/${bobItem}/reactions`, {})).status).toBeLessThan(300);
    const room = await bob.api.post(`${CHAT}/rooms`, { memberIds: [alice.userId] });
    expect(room.status, room.text).toBeLessThan(300);
    const roomId = room.body.data.roomId;
    const message = await alice.api.post(`${CHAT}/messages`, { roomId, msg: 'A message by Alice' });
    expect(message.status, message.text).toBe(201);
    expect((await alice.api.post(`/auth/api/v1/users/${bob.userId}/follow`, undefined, { headers: { 'x-user-id': alice.userId } })).status).toBe(200);
    expect((await bob.api.post(`/auth/api/v1/users/${alice.userId}/follow`, undefined, { headers: { 'x-user-id': bob.userId } })).status).toBe(200);
    expect((await alice.api.post(`${CONTENT}/saved-searches`, { name: 'mine', filters: { search: 'river' }, notify: 'off' })).status).toBe(201);
    await topUp(alice, 100_000);
    const bobInbox = async () => (await bob.api.get(`${SNS}/notifications`)).body.data.notifications as any[];
    expect((await bobInbox()).some((n) => n.actor?.userId === alice.userId && n.actor.name.includes('Alice'))).toBe(true);

    expect((await bob.api.get(`/api/v1/content/${bobItem}`)).body.data.reaction_count).toBe(1);
    // Warm the caches that must forget her.
    expect((await bob.api.get(`${ME}?user_id=${alice.userId}`)).status).toBe(200);
    expect((await bob.api.get(`/api/v1/content/${aliceItem}`)).status).toBe(200);
    const socket = await connect(server.url, '/notifications', alice.token, 'websocket');
    const dropped = disconnected(socket, 10_000);

    const res = await deleteAccount(alice, { password: alice.password });
    expect(res.status, res.text).toBe(202);
    const scheduled = Date.parse(res.body.data.deletion_scheduled_at);
    expect(Number.isNaN(scheduled)).toBe(false);

    // At once: sessions and sockets end, login answers as for an unknown number.
    await dropped;
    expectErrorEnvelope(await alice.api.get(ME), 401);
    const login = expectErrorEnvelope(await new ApiClient(server.url).post('/auth/api/v1/login', { phone_number: alice.phone, password: alice.password }), 400);
    const unknown = expectErrorEnvelope(
      await new ApiClient(server.url).post('/auth/api/v1/login', { phone_number: '+84901111119', password: alice.password }),
      400,
    );
    expect([login.error_code, login.message]).toEqual([unknown.error_code, unknown.message]);
    // Profile and content 404 to others; gone from listings; the comment is not listed; the message reads as deleted.
    expectErrorEnvelope(await bob.api.get(`${ME}?user_id=${alice.userId}`), 404);
    expectErrorEnvelope(await bob.api.get(`/api/v1/content/${aliceItem}`), 404);
    const listed = async (p: string) => JSON.stringify((await bob.api.get(p)).body);
    for (const p of [`${CONTENT}/all`, `${CONTENT}/completed`, `${CONTENT}/all?search=Riverside`]) expect(await listed(p)).not.toContain(aliceItem);
    const comments = await listed(`${SNS}/comments/${bobItem}`);
    expect(comments).not.toContain('A comment by Alice');
    expect(comments).not.toContain(alice.userId);
    const historyText = await listed(`${CHAT}/rooms/${roomId}/messages`);
    expect(historyText).not.toContain('A message by Alice');
    expect(historyText).toContain('"deleted":true');
    expect(JSON.stringify(await bobInbox())).not.toContain('Alice');
    // Following someone deleted is refused as for an unknown user.
    expectErrorEnvelope(await bob.api.post(`/auth/api/v1/users/${alice.userId}/follow`, undefined, { headers: { 'x-user-id': bob.userId } }), 404);

    // The number registers again, as a new account.
    const again = await new ApiClient(server.url).post('/auth/api/v1/register', {
      username: alice.username,
      password: 'another-password',
      phone_number: alice.phone,
      given_name: 'New',
      family_name: 'Owner',
    });
    expect(again.status, again.text).toBe(201);
    expect(again.body.data.UserSub).not.toBe(alice.userId);
    expect(
      (await new ApiClient(server.url).post('/auth/api/v1/verify-otp', { phone_number: alice.phone, otp: lastCode(server, alice.phone, 'register') })).status,
    ).toBe(200);

    // The erasure job runs (durable, at once here).
    await untilErased(alice.userId);
    const db = server.service.app.database;
    const [user] = await db.rows<Record<string, unknown>>(sql`select * from users where id = ${alice.userId}`);
    expect(user).toMatchObject({ email: null, picture: null, given_name: 'Deleted', family_name: 'user', phone_verified: false, two_factor_secret: null });
    expect(JSON.stringify(user)).not.toContain(alice.phone);
    expect(JSON.stringify(user)).not.toContain(alice.username);
    const [counts] = await db.rows<Record<string, number>>(sql`
      select (select count(*)::int from sessions where user_id = ${alice.userId}) as sessions,
             (select count(*)::int from contents where uploader_id = ${alice.userId}) as contents,
             (select count(*)::int from follows where follower_id = ${alice.userId} or following_id = ${alice.userId}) as follows,
             (select count(*)::int from content_reactions where user_id = ${alice.userId}) as reactions,
             (select count(*)::int from saved_searches where user_id = ${alice.userId}) as saved_searches,
             (select count(*)::int from notifications where user_id = ${alice.userId}) as notifications,
             (select count(*)::int from comments where author_id = ${alice.userId} and msg <> '') as comment_texts,
             (select count(*)::int from chat_messages where sender_id = ${alice.userId} and msg <> '') as message_texts,
             (select count(*)::int from payments where user_id = ${alice.userId}) as payments,
             (select count(*)::int from balance_ledger where user_id = ${alice.userId}) as ledger`);
    expect(counts).toEqual({
      sessions: 0,
      contents: 0,
      follows: 0,
      reactions: 0,
      saved_searches: 0,
      notifications: 0,
      comment_texts: 0,
      message_texts: 0,
      payments: 1,
      ledger: 1,
    });
    expect(await stored.exists(itemFile)).toBe(false);
    expect(await stored.exists(avatarFile)).toBe(false);
    expect((await fetch(`${server.url}/media/content/${aliceItem}/original.mp4`)).status).toBe(404);
    // Bob's item lost Alice's reaction from its count.
    expect((await bob.api.get(`/api/v1/content/${bobItem}`)).body.data.reaction_count).toBe(0);
    // Bob's notifications that named her show a deleted user.
    const named = (await bobInbox()).filter((n) => n.actor?.userId === alice.userId);
    expect(named.length).toBeGreaterThan(0);
    for (const n of named) expect(n.actor).toMatchObject({ name: 'Deleted user', avatar: null });
    // The audit log has the deletion and the erasure, with ids and no personal data.
    const admin = await loginAdmin(server);
    const audit = await admin.api.get(`/api/v1/moderation/audit?target_id=${alice.userId}`);
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.data.items.map((e: any) => e.action).sort()).toEqual(['account.delete', 'account.erase']);
    for (const secret of [alice.phone, alice.username, 'Alice']) expect(audit.text).not.toContain(secret);
  });
});
