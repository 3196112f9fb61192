// One-time codes expire OTP_TTL seconds after they are sent. With a 2 s TTL a code used after 3 s
// must be refused (code_expired) and a code used at once must be accepted, on both endpoints
// that take one: verify-otp and confirm-forgot-password.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, expectErrorEnvelope, lastCode, uniquePhone, uniqueUsername } from '../helpers/api.js';
import { AUTH } from './fixtures.js';

const OTP_TTL_SECONDS = 2;
const server = useTestServer({ OTP_TTL: String(OTP_TTL_SECONDS) });
const api = () => new ApiClient(server.url);

const pausePastTtl = () => new Promise((r) => setTimeout(r, OTP_TTL_SECONDS * 1000 + 1000));

/** Registers a user; its register code is in the outbox. */
async function register(): Promise<{ phone: string; password: string }> {
  const phone = uniquePhone();
  const password = 'password-123';
  const res = await api().post(`${AUTH}/register`, { username: uniqueUsername(), password, phone_number: phone, given_name: 'E', family_name: 'X' });
  expect(res.status).toBe(201);
  return { phone, password };
}

/** Registers a user and verifies the number, so it can log in and reset its password. */
async function registerVerified(): Promise<{ phone: string; password: string }> {
  const user = await register();
  expect((await api().post(`${AUTH}/verify-otp`, { phone_number: user.phone, otp: lastCode(server.current, user.phone, 'register') })).status).toBe(200);
  return user;
}

describe('POST /verify-otp with a code past its TTL', () => {
  it('should fail with 400 code_expired', async () => {
    const { phone, password } = await register();
    const otp = lastCode(server.current, phone, 'register');
    await pausePastTtl();
    const err = expectErrorEnvelope(await api().post(`${AUTH}/verify-otp`, { phone_number: phone, otp }), 400, 'auth.error.code_expired');
    expect(err.details?.field).toBe('otp');
    // The number stays unverified.
    expectErrorEnvelope(await api().post(`${AUTH}/login`, { phone_number: phone, password }), 400, 'auth.error.phone_not_verified');
  });
});

describe('POST /confirm-forgot-password with a code past its TTL', () => {
  it('should fail with 400 code_expired and keep the old password', async () => {
    const { phone, password } = await registerVerified();
    expect((await api().post(`${AUTH}/forgot-password`, { phone_number: phone })).status).toBe(200);
    const code = lastCode(server.current, phone, 'forgot-password');
    await pausePastTtl();
    const err = expectErrorEnvelope(
      await api().post(`${AUTH}/confirm-forgot-password`, { phone_number: phone, confirmation_code: code, new_password: 'brand-new-pass' }),
      400,
      'auth.error.code_expired',
    );
    expect(err.details?.field).toBe('confirmation_code');
    expect((await api().post(`${AUTH}/login`, { phone_number: phone, password })).status).toBe(200);
  });
});

describe('codes used within their TTL', () => {
  it('should succeed verifying the number with a fresh code sent after an expired one', async () => {
    const { phone, password } = await register();
    await pausePastTtl();
    expect((await api().post(`${AUTH}/send-otp`, { phone_number: phone })).status).toBe(200);
    const res = await api().post(`${AUTH}/verify-otp`, { phone_number: phone, otp: lastCode(server.current, phone, 'send-otp') });
    expect(res.status).toBe(200);
    expect((await api().post(`${AUTH}/login`, { phone_number: phone, password })).status).toBe(200);
  });

  it('should succeed resetting the password with a fresh reset code', async () => {
    const { phone } = await registerVerified();
    expect((await api().post(`${AUTH}/forgot-password`, { phone_number: phone })).status).toBe(200);
    const code = lastCode(server.current, phone, 'forgot-password');
    const res = await api().post(`${AUTH}/confirm-forgot-password`, { phone_number: phone, confirmation_code: code, new_password: 'brand-new-pass' });
    expect(res.status).toBe(200);
    expect((await api().post(`${AUTH}/login`, { phone_number: phone, password: 'brand-new-pass' })).status).toBe(200);
  });
});
