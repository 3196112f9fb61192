// POST /content/api/v1/auth/2fa/toggle and the two-factor login flow over the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { authenticator } from 'otplib';
import { bootServer, type TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, uniquePhone, type TestUser } from '../helpers/api.js';

const toggle = '/content/api/v1/auth/2fa/toggle';
const loginPath = '/auth/api/v1/login';
let server: TestServer;

beforeAll(async () => {
  server = await bootServer({ SCHEDULER_ENABLED: 'false' });
});
afterAll(async () => {
  await server?.close();
});

const secretOf = (otpauthUrl: string): string => new URL(otpauthUrl).searchParams.get('secret')!;
/** The TOTP code of the step `offsetSteps` from now (the server accepts ±1 step). */
const totpCode = (secret: string, offsetSteps = 0): string =>
  authenticator.clone({ epoch: Date.now() + offsetSteps * 30_000 }).generate(secret);

async function enable(user: TestUser) {
  const res = await user.api.post(toggle, { action: 'enable', current_password: user.password, phone_number: user.phone });
  if (res.status !== 200) throw new Error(`enable failed: ${res.status} ${res.text}`);
  return res.body.data as { backup_codes: string[]; qr_code: string; otpauth_url: string; secret: string };
}

const loginWith = (user: TestUser, extra: Record<string, unknown> = {}) =>
  new ApiClient(server.url).post(loginPath, { phone_number: user.phone, password: user.password, ...extra });

describe('two-factor toggle: bad input', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await registerAndLogin(server);
  });

  it('refuses a wrong current_password (400 auth.error.invalid_password)', async () => {
    const err = expectErrorEnvelope(await user.api.post(toggle, { action: 'enable', current_password: 'wrong-password', phone_number: user.phone }), 400);
    expect(err.error_code).toBe('auth.error.invalid_password');
    expect(err.details?.field).toBe('current_password');
  });

  it('refuses another user\'s phone number, and an invalid one', async () => {
    const other = await registerAndLogin(server);
    const err = expectErrorEnvelope(await user.api.post(toggle, { action: 'enable', current_password: user.password, phone_number: other.phone }), 400);
    expect(err.error_code).toBe('auth.error.phone_mismatch');
    expect(err.details?.field).toBe('phone_number');
    expectErrorEnvelope(await user.api.post(toggle, { action: 'enable', current_password: user.password, phone_number: uniquePhone() }), 400);
    expectErrorEnvelope(await user.api.post(toggle, { action: 'enable', current_password: user.password, phone_number: 'not a phone' }), 400);
  });

  it('refuses missing fields and a wrong action', async () => {
    const noPhone = expectErrorEnvelope(await user.api.post(toggle, { action: 'enable', current_password: user.password }), 400);
    expect(noPhone.details?.field).toBe('phone_number');
    const noPassword = expectErrorEnvelope(await user.api.post(toggle, { action: 'enable', phone_number: user.phone }), 400);
    expect(noPassword.details?.field).toBe('current_password');
    const noCode = expectErrorEnvelope(await user.api.post(toggle, { action: 'disable', current_password: user.password }), 400);
    expect(noCode.details?.field).toBe('verification_code');
    const badAction = expectErrorEnvelope(await user.api.post(toggle, { action: 'toggle', current_password: user.password }), 400);
    expect(badAction.details?.field).toBe('action');
    expectErrorEnvelope(await user.api.post(toggle, { action: 'enable', current_password: 12345678, phone_number: user.phone }), 400);
  });

  it('answers 409 when disabling while two-factor is off', async () => {
    const err = expectErrorEnvelope(await user.api.post(toggle, { action: 'disable', current_password: user.password, verification_code: '123456' }), 409);
    expect(err.error_code).toBe('auth.error.two_factor_not_enabled');
  });

  it('needs a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).post(toggle, { action: 'enable', current_password: 'x', phone_number: user.phone }), 401);
  });

  it('nothing was enabled by the refused requests', async () => {
    expect((await user.api.get('/content/api/v1/user/settings')).body.data.privacy.two_factor_enabled).toBe(false);
    expect((await loginWith(user)).status).toBe(200);
  });
});

describe('two-factor: the full flow', () => {
  let user: TestUser;
  let enabled: Awaited<ReturnType<typeof enable>>;

  beforeAll(async () => {
    user = await registerAndLogin(server);
  });

  it('enables with the own number in another spelling: backup codes, a QR code and the otpauth URI', async () => {
    const national = '0' + user.phone.slice(3); // +8490… → 090…
    const res = await user.api.post(toggle, { action: 'enable', current_password: user.password, phone_number: national });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(typeof res.body.message).toBe('string');
    enabled = res.body.data;
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
    expect((await user.api.get('/content/api/v1/user/settings')).body.data.privacy.two_factor_enabled).toBe(true);
  });

  it('stores the secret encrypted and the backup codes hashed', async () => {
    const db = server.service.app.database;
    const [cred] = await db.rows<{ secret_encrypted: string }>(sql`select secret_encrypted from two_factor_credentials where user_id = ${user.userId}`);
    expect(cred.secret_encrypted).not.toContain(enabled.secret);
    expect(cred.secret_encrypted.startsWith('v1.')).toBe(true);
    const codes = await db.rows<{ code_hash: string }>(sql`select code_hash from two_factor_backup_codes where user_id = ${user.userId}`);
    expect(codes).toHaveLength(10);
    for (const { code_hash } of codes) for (const c of enabled.backup_codes) expect(code_hash).not.toContain(c.replace('-', ''));
  });

  it('answers 409 when enabling again', async () => {
    const err = expectErrorEnvelope(await user.api.post(toggle, { action: 'enable', current_password: user.password, phone_number: user.phone }), 409);
    expect(err.error_code).toBe('auth.error.two_factor_already_enabled');
  });

  it('login without a code: 401 auth.error.two_factor_required', async () => {
    const err = expectErrorEnvelope(await loginWith(user), 401);
    expect(err.error_code).toBe('auth.error.two_factor_required');
  });

  it('login with a wrong password still says invalid credentials (no hint that two-factor is on)', async () => {
    const res = await new ApiClient(server.url).post(loginPath, { phone_number: user.phone, password: 'wrong-password' });
    expect(expectErrorEnvelope(res, 400).error_code).toBe('auth.error.invalid_credentials');
  });

  it('login with a TOTP code generated from the otpauth secret: 200; the same code again is refused', async () => {
    const code = totpCode(secretOf(enabled.otpauth_url));
    const res = await loginWith(user, { two_factor_code: code });
    expect(res.status).toBe(200);
    expect(res.body.data.AccessToken).toBeTruthy();
    const replay = expectErrorEnvelope(await loginWith(user, { two_factor_code: code }), 401);
    expect(replay.error_code).toBe('auth.error.invalid_two_factor_code');
  });

  it('a backup code works once', async () => {
    const code = enabled.backup_codes[0];
    expect((await loginWith(user, { two_factor_code: code.toUpperCase() })).status).toBe(200);
    const again = expectErrorEnvelope(await loginWith(user, { two_factor_code: code }), 401);
    expect(again.error_code).toBe('auth.error.invalid_two_factor_code');
  });

  it('disable: a used backup code or a wrong code is 400 auth.error.invalid_code; a wrong password 400 auth.error.invalid_password', async () => {
    const used = expectErrorEnvelope(await user.api.post(toggle, { action: 'disable', current_password: user.password, verification_code: enabled.backup_codes[0] }), 400);
    expect(used.error_code).toBe('auth.error.invalid_code');
    expect(used.details?.field).toBe('verification_code');
    const wrong = expectErrorEnvelope(await user.api.post(toggle, { action: 'disable', current_password: user.password, verification_code: '000000' === totpCode(enabled.secret) ? '111111' : '000000' }), 400);
    expect(wrong.error_code).toBe('auth.error.invalid_code');
    const badPassword = expectErrorEnvelope(await user.api.post(toggle, { action: 'disable', current_password: 'wrong-password', verification_code: enabled.backup_codes[1] }), 400);
    expect(badPassword.error_code).toBe('auth.error.invalid_password');
  });

  it('disable with a current TOTP code: two-factor off, login needs no code, old backup codes are gone', async () => {
    // The next step's code: the current step was already used by the login above.
    const res = await user.api.post(toggle, { action: 'disable', current_password: user.password, verification_code: totpCode(enabled.secret, 1) });
    expect(res.status).toBe(200);
    expect(res.body.data.two_factor_enabled).toBe(false);
    expect((await user.api.get('/content/api/v1/user/settings')).body.data.privacy.two_factor_enabled).toBe(false);
    expect((await loginWith(user)).status).toBe(200);
    const [n] = await server.service.app.database.rows<{ n: number }>(sql`
      select (select count(*) from two_factor_backup_codes where user_id = ${user.userId})::int
           + (select count(*) from two_factor_credentials where user_id = ${user.userId})::int as n`);
    expect(n.n).toBe(0);
  });

  it('disable with an unused backup code works too (after enabling again)', async () => {
    const again = await enable(user);
    expect(again.secret).not.toBe(enabled.secret);
    const res = await user.api.post(toggle, { action: 'disable', current_password: user.password, verification_code: again.backup_codes[3] });
    expect(res.status).toBe(200);
    expect((await loginWith(user)).status).toBe(200);
  });
});

describe('two-factor: guessing is locked', () => {
  it('a wrong TOTP code six times: five 401s, then 429 even for the right code', async () => {
    const user = await registerAndLogin(server);
    const { secret } = await enable(user);
    const right = totpCode(secret);
    const wrong = right === '000000' ? '111111' : '000000';
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
    expectErrorEnvelope(await user.api.post(toggle, { action: 'disable', current_password: user.password, verification_code: right }), 429);
  });

  it('a right code resets the count of wrong ones', async () => {
    const user = await registerAndLogin(server);
    const { secret, backup_codes } = await enable(user);
    for (let i = 0; i < 4; i++) expectErrorEnvelope(await loginWith(user, { two_factor_code: 'zzzzz-zzzzz' }), 401);
    expect((await loginWith(user, { two_factor_code: backup_codes[0] })).status).toBe(200);
    for (let i = 0; i < 4; i++) expectErrorEnvelope(await loginWith(user, { two_factor_code: 'zzzzz-zzzzz' }), 401);
    expect((await loginWith(user, { two_factor_code: totpCode(secret) })).status).toBe(200);
  });
});
