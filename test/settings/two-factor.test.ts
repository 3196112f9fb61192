// POST /content/api/v1/auth/2fa/toggle and the two-factor login flow over the real server.
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { authenticator } from 'otplib';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, uniquePhone, type TestUser } from '../helpers/api.js';

const toggle = '/content/api/v1/auth/2fa/toggle';
const settingsPath = '/content/api/v1/user/settings';
const loginPath = '/auth/api/v1/login';
const booted = useTestServer({ SCHEDULER_ENABLED: 'false' });
let server: TestServer;

beforeAll(() => {
  server = booted.current;
});

const secretOf = (otpauthUrl: string): string => new URL(otpauthUrl).searchParams.get('secret')!;
/** The TOTP code of the step `offsetSteps` from now (the server accepts ±1 step). */
const totpCode = (secret: string, offsetSteps = 0): string => authenticator.clone({ epoch: Date.now() + offsetSteps * 30_000 }).generate(secret);
/** A six-digit code that is not the current one. */
const wrongCode = (secret: string): string => (totpCode(secret) === '000000' ? '111111' : '000000');

type Enabled = { backup_codes: string[]; qr_code: string; otpauth_url: string; secret: string };

async function enable(user: TestUser): Promise<Enabled> {
  const res = await user.api.post(toggle, { action: 'enable', current_password: user.password, phone_number: user.phone });
  if (res.status !== 200) throw new Error(`enable failed: ${res.status} ${res.text}`);
  return res.body.data;
}

/** A fresh user with two-factor on. */
async function userWithTwoFactor(): Promise<{ user: TestUser; enabled: Enabled }> {
  const user = await registerAndLogin(server);
  return { user, enabled: await enable(user) };
}

const loginWith = (user: TestUser, extra: Record<string, unknown> = {}) =>
  new ApiClient(server.url).post(loginPath, { phone_number: user.phone, password: user.password, ...extra });

const disableWith = (user: TestUser, verificationCode: string, currentPassword = user.password) =>
  user.api.post(toggle, { action: 'disable', current_password: currentPassword, verification_code: verificationCode });

describe('POST /auth/2fa/toggle: enable', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await registerAndLogin(server);
  });

  it('should fail without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).post(toggle, { action: 'enable', current_password: 'x', phone_number: user.phone }), 401);
  });

  it('should fail with a wrong current_password (400 auth.error.invalid_password)', async () => {
    const err = expectErrorEnvelope(await user.api.post(toggle, { action: 'enable', current_password: 'wrong-password', phone_number: user.phone }), 400);
    expect(err.error_code).toBe('auth.error.invalid_password');
    expect(err.details?.field).toBe('current_password');
  });

  it("should fail with another user's phone number", async () => {
    const other = await registerAndLogin(server);
    const err = expectErrorEnvelope(await user.api.post(toggle, { action: 'enable', current_password: user.password, phone_number: other.phone }), 400);
    expect(err.error_code).toBe('auth.error.phone_mismatch');
    expect(err.details?.field).toBe('phone_number');
  });

  it('should fail with a number of no account, and with an invalid one', async () => {
    expectErrorEnvelope(await user.api.post(toggle, { action: 'enable', current_password: user.password, phone_number: uniquePhone() }), 400);
    expectErrorEnvelope(await user.api.post(toggle, { action: 'enable', current_password: user.password, phone_number: 'not a phone' }), 400);
  });

  it('should fail without phone_number', async () => {
    const err = expectErrorEnvelope(await user.api.post(toggle, { action: 'enable', current_password: user.password }), 400);
    expect(err.details?.field).toBe('phone_number');
  });

  it('should fail without current_password, or with one that is not a string', async () => {
    const err = expectErrorEnvelope(await user.api.post(toggle, { action: 'enable', phone_number: user.phone }), 400);
    expect(err.details?.field).toBe('current_password');
    expectErrorEnvelope(await user.api.post(toggle, { action: 'enable', current_password: 12345678, phone_number: user.phone }), 400);
  });

  it('should fail with an unknown action', async () => {
    const err = expectErrorEnvelope(await user.api.post(toggle, { action: 'toggle', current_password: user.password }), 400);
    expect(err.details?.field).toBe('action');
  });

  it('should fail with 409 when two-factor is already on', async () => {
    const { user: enabledUser } = await userWithTwoFactor();
    const err = expectErrorEnvelope(
      await enabledUser.api.post(toggle, { action: 'enable', current_password: enabledUser.password, phone_number: enabledUser.phone }),
      409,
    );
    expect(err.error_code).toBe('auth.error.two_factor_already_enabled');
  });

  it('enables nothing on a refused request', async () => {
    expect((await user.api.get(settingsPath)).body.data.privacy.two_factor_enabled).toBe(false);
    expect((await loginWith(user)).status).toBe(200);
  });

  it('enables with the own number in another spelling: backup codes, a QR code and the otpauth URI', async () => {
    const fresh = await registerAndLogin(server);
    const national = '0' + fresh.phone.slice(3); // +8490… → 090…
    const res = await fresh.api.post(toggle, { action: 'enable', current_password: fresh.password, phone_number: national });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(typeof res.body.message).toBe('string');
    const enabled: Enabled = res.body.data;
    expect(enabled.backup_codes).toHaveLength(10);
    expect(new Set(enabled.backup_codes).size).toBe(10);
    for (const c of enabled.backup_codes) expect(c).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}$/);
    expect(enabled.qr_code).toMatch(/^data:image\/png;base64,/);
    const png = Buffer.from(enabled.qr_code.split(',')[1], 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    const uri = new URL(enabled.otpauth_url);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(secretOf(enabled.otpauth_url)).toBe(enabled.secret);
  });

  it('shows two-factor on in the settings once enabled', async () => {
    const { user: enabledUser } = await userWithTwoFactor();
    expect((await enabledUser.api.get(settingsPath)).body.data.privacy.two_factor_enabled).toBe(true);
  });

  it('stores the secret encrypted and the backup codes hashed', async () => {
    const { user: enabledUser, enabled } = await userWithTwoFactor();
    const db = server.service.app.database;
    const [cred] = await db.rows<{ secret_encrypted: string }>(sql`select secret_encrypted from two_factor_credentials where user_id = ${enabledUser.userId}`);
    expect(cred.secret_encrypted).not.toContain(enabled.secret);
    expect(cred.secret_encrypted.startsWith('v1.')).toBe(true);
    const codes = await db.rows<{ code_hash: string }>(sql`select code_hash from two_factor_backup_codes where user_id = ${enabledUser.userId}`);
    expect(codes).toHaveLength(10);
    for (const { code_hash } of codes) for (const c of enabled.backup_codes) expect(code_hash).not.toContain(c.replace('-', ''));
  });
});

describe('POST /auth/2fa/toggle: disable', () => {
  it('should fail with 409 when two-factor is off', async () => {
    const user = await registerAndLogin(server);
    const err = expectErrorEnvelope(await disableWith(user, '123456'), 409);
    expect(err.error_code).toBe('auth.error.two_factor_not_enabled');
  });

  it('should fail without verification_code', async () => {
    const user = await registerAndLogin(server);
    const err = expectErrorEnvelope(await user.api.post(toggle, { action: 'disable', current_password: user.password }), 400);
    expect(err.details?.field).toBe('verification_code');
  });

  it('should fail with a backup code already used (400 auth.error.invalid_code)', async () => {
    const { user, enabled } = await userWithTwoFactor();
    expect((await loginWith(user, { two_factor_code: enabled.backup_codes[0] })).status).toBe(200);
    const err = expectErrorEnvelope(await disableWith(user, enabled.backup_codes[0]), 400);
    expect(err.error_code).toBe('auth.error.invalid_code');
    expect(err.details?.field).toBe('verification_code');
  });

  it('should fail with a wrong code (400 auth.error.invalid_code)', async () => {
    const { user, enabled } = await userWithTwoFactor();
    const err = expectErrorEnvelope(await disableWith(user, wrongCode(enabled.secret)), 400);
    expect(err.error_code).toBe('auth.error.invalid_code');
  });

  it('should fail with a wrong password (400 auth.error.invalid_password)', async () => {
    const { user, enabled } = await userWithTwoFactor();
    const err = expectErrorEnvelope(await disableWith(user, enabled.backup_codes[1], 'wrong-password'), 400);
    expect(err.error_code).toBe('auth.error.invalid_password');
  });

  it('disables with a current TOTP code: two-factor off, login needs no code, old backup codes are gone', async () => {
    const { user, enabled } = await userWithTwoFactor();
    const res = await disableWith(user, totpCode(enabled.secret));
    expect(res.status).toBe(200);
    expect(res.body.data.two_factor_enabled).toBe(false);
    expect((await user.api.get(settingsPath)).body.data.privacy.two_factor_enabled).toBe(false);
    expect((await loginWith(user)).status).toBe(200);
    const [n] = await server.service.app.database.rows<{ n: number }>(sql`
      select (select count(*) from two_factor_backup_codes where user_id = ${user.userId})::int
           + (select count(*) from two_factor_credentials where user_id = ${user.userId})::int as n`);
    expect(n.n).toBe(0);
  });

  it('disables with an unused backup code of a new secret (after disabling and enabling again)', async () => {
    const { user, enabled } = await userWithTwoFactor();
    expect((await disableWith(user, totpCode(enabled.secret))).status).toBe(200);
    const again = await enable(user);
    expect(again.secret).not.toBe(enabled.secret);
    const res = await disableWith(user, again.backup_codes[3]);
    expect(res.status).toBe(200);
    expect((await loginWith(user)).status).toBe(200);
  });
});

describe('POST /auth/api/v1/login with two-factor on', () => {
  it('should fail without a code (401 auth.error.two_factor_required)', async () => {
    const { user } = await userWithTwoFactor();
    const err = expectErrorEnvelope(await loginWith(user), 401);
    expect(err.error_code).toBe('auth.error.two_factor_required');
  });

  it('should fail with a wrong password as invalid credentials (no hint that two-factor is on)', async () => {
    const { user } = await userWithTwoFactor();
    const res = await new ApiClient(server.url).post(loginPath, { phone_number: user.phone, password: 'wrong-password' });
    expect(expectErrorEnvelope(res, 400).error_code).toBe('auth.error.invalid_credentials');
  });

  it('should fail with a TOTP code used already (no replay)', async () => {
    const { user, enabled } = await userWithTwoFactor();
    const code = totpCode(secretOf(enabled.otpauth_url));
    expect((await loginWith(user, { two_factor_code: code })).status).toBe(200);
    const replay = expectErrorEnvelope(await loginWith(user, { two_factor_code: code }), 401);
    expect(replay.error_code).toBe('auth.error.invalid_two_factor_code');
  });

  it('should fail with a backup code used already', async () => {
    const { user, enabled } = await userWithTwoFactor();
    const code = enabled.backup_codes[0];
    expect((await loginWith(user, { two_factor_code: code })).status).toBe(200);
    const again = expectErrorEnvelope(await loginWith(user, { two_factor_code: code }), 401);
    expect(again.error_code).toBe('auth.error.invalid_two_factor_code');
  });

  it('logs in with a TOTP code generated from the otpauth secret', async () => {
    const { user, enabled } = await userWithTwoFactor();
    const res = await loginWith(user, { two_factor_code: totpCode(secretOf(enabled.otpauth_url)) });
    expect(res.status).toBe(200);
    expect(res.body.data.AccessToken).toBeTruthy();
  });

  it('logs in with a backup code typed in upper case', async () => {
    const { user, enabled } = await userWithTwoFactor();
    expect((await loginWith(user, { two_factor_code: enabled.backup_codes[0].toUpperCase() })).status).toBe(200);
  });
});

describe('two-factor: guessing is locked', () => {
  it('should fail with 429 after five wrong codes, even for the right code, at login and at the toggle', async () => {
    const { user, enabled } = await userWithTwoFactor();
    const right = totpCode(enabled.secret);
    const wrong = wrongCode(enabled.secret);
    for (let i = 0; i < 5; i++) {
      const err = expectErrorEnvelope(await loginWith(user, { two_factor_code: wrong }), 401);
      expect(err.error_code).toBe('auth.error.invalid_two_factor_code');
    }
    const sixth = expectErrorEnvelope(await loginWith(user, { two_factor_code: wrong }), 429);
    expect(sixth.error_code).toBe('auth.error.two_factor_locked');
    const res = await loginWith(user, { two_factor_code: right });
    expect(expectErrorEnvelope(res, 429).error_code).toBe('auth.error.two_factor_locked');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // The toggle's verification_code shares the same budget.
    expectErrorEnvelope(await disableWith(user, right), 429);
  });

  it('a right code resets the count of wrong ones', async () => {
    const { user, enabled } = await userWithTwoFactor();
    for (let i = 0; i < 4; i++) expectErrorEnvelope(await loginWith(user, { two_factor_code: 'zzzzz-zzzzz' }), 401);
    expect((await loginWith(user, { two_factor_code: enabled.backup_codes[0] })).status).toBe(200);
    for (let i = 0; i < 4; i++) expectErrorEnvelope(await loginWith(user, { two_factor_code: 'zzzzz-zzzzz' }), 401);
    expect((await loginWith(user, { two_factor_code: totpCode(enabled.secret) })).status).toBe(200);
  });
});
