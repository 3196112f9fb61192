// Expired one-time codes (OTP_TTL=1 s): verify-otp and confirm-forgot-password refuse them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootServer, type TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, lastCode, uniquePhone, uniqueUsername } from '../helpers/api.js';
import { AUTH } from './fixtures.js';

let server: TestServer;
let api: ApiClient;

beforeAll(async () => {
  server = await bootServer({ OTP_TTL: '1' });
  api = new ApiClient(server.url);
});
afterAll(async () => {
  await server?.close();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('expired codes', () => {
  it('verify-otp answers 400 code_expired after the TTL; a fresh code used at once works', async () => {
    const phone = uniquePhone();
    expect((await api.post(`${AUTH}/register`, { username: uniqueUsername(), password: 'password-123', phone_number: phone, given_name: 'E', family_name: 'X' })).status).toBe(201);
    const otp = lastCode(server, phone, 'register');
    await pause(1500);
    expectErrorEnvelope(await api.post(`${AUTH}/verify-otp`, { phone_number: phone, otp }), 400, 'auth.error.code_expired');
    expect((await api.post(`${AUTH}/send-otp`, { phone_number: phone })).status).toBe(200);
    const fresh = lastCode(server, phone, 'send-otp');
    const res = await api.post(`${AUTH}/verify-otp`, { phone_number: phone, otp: fresh });
    // Within one second of sending; on a very slow machine this may also expire, which the
    // error code would say.
    if (res.status !== 200) expectErrorEnvelope(res, 400, 'auth.error.code_expired');

    await api.post(`${AUTH}/forgot-password`, { phone_number: phone });
    const reset = lastCode(server, phone, 'forgot-password');
    await pause(1500);
    expectErrorEnvelope(
      await api.post(`${AUTH}/confirm-forgot-password`, { phone_number: phone, confirmation_code: reset, new_password: 'brand-new-pass' }),
      400,
      'auth.error.code_expired',
    );
  });
});
