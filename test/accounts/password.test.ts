// /forgot-password, /confirm-forgot-password and /user/change_password over the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootServer, type TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, lastCode, login, readOutbox, registerAndLogin, uniquePhone, type TestUser } from '../helpers/api.js';
import { AUTH } from './fixtures.js';

let server: TestServer;
let api: ApiClient;

beforeAll(async () => {
  server = await bootServer();
  api = new ApiClient(server.url);
});
afterAll(async () => {
  await server?.close();
});

const national = (e164: string) => `0${e164.slice(3)}`;
const refresh = (u: TestUser) =>
  api.post(`${AUTH}/refresh-token`, { refresh_token: u.refreshToken }, { headers: { 'x-user-username': u.username, 'x-session-id': u.sessionId } });
const loginStatus = async (phone: string, password: string) => (await api.post(`${AUTH}/login`, { phone_number: phone, password })).status;

describe('POST /forgot-password', () => {
  it('sends a reset code and answers CodeDeliveryDetails', async () => {
    const user = await registerAndLogin(server);
    const res = await api.post(`${AUTH}/forgot-password`, { phone_number: national(user.phone) });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ CodeDeliveryDetails: { Destination: `+84*****${user.phone.slice(-4)}`, DeliveryMedium: 'SMS', AttributeName: 'phone_number' } });
    const sms = readOutbox(server).filter((e) => e.to === user.phone && e.purpose === 'forgot-password');
    expect(sms).toHaveLength(1);
    expect(res.text).not.toContain(sms[0].code);
  });

  it('answers 404 for an unknown number, 400 for bad input, 429 after five codes in an hour', async () => {
    expectErrorEnvelope(await api.post(`${AUTH}/forgot-password`, { phone_number: uniquePhone() }), 404, 'auth.error.user_not_found');
    expectErrorEnvelope(await api.post(`${AUTH}/forgot-password`, {}), 400, 'validation.error');
    expectErrorEnvelope(await api.post(`${AUTH}/forgot-password`, { phone_number: 901234567 }), 400, 'validation.error');
    expectErrorEnvelope(await api.post(`${AUTH}/forgot-password`, { phone_number: 'abc' }), 400);
    const user = await registerAndLogin(server);
    for (let i = 0; i < 5; i++) expect((await api.post(`${AUTH}/forgot-password`, { phone_number: user.phone })).status).toBe(200);
    expectErrorEnvelope(await api.post(`${AUTH}/forgot-password`, { phone_number: user.phone }), 429);
  });
});

describe('POST /confirm-forgot-password', () => {
  it('sets the new password and ends every session (their tokens answer 401)', async () => {
    const user = await registerAndLogin(server);
    const second = await login(server, user.phone, user.password);
    await api.post(`${AUTH}/forgot-password`, { phone_number: user.phone });
    const code = lastCode(server, user.phone, 'forgot-password');
    const res = await api.post(`${AUTH}/confirm-forgot-password`, { phone_number: user.phone, confirmation_code: code, new_password: 'brand-new-pass' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ message: expect.any(String) });
    for (const session of [user, second]) {
      expectErrorEnvelope(await session.api.get(`${AUTH}/user/me`), 401, 'auth.error.session_revoked');
      expectErrorEnvelope(await refresh(session), 401);
    }
    expect(await loginStatus(user.phone, user.password)).toBe(400);
    expect(await loginStatus(user.phone, 'brand-new-pass')).toBe(200);
    // The code is single use.
    expectErrorEnvelope(
      await api.post(`${AUTH}/confirm-forgot-password`, { phone_number: user.phone, confirmation_code: code, new_password: 'another-pass-1' }),
      400,
      'auth.error.invalid_code',
    );
  });

  it('answers 400 for a wrong code, a code of another purpose, and locks after five wrong tries', async () => {
    const user = await registerAndLogin(server);
    // No reset code yet: the verification code of registration does not count.
    expectErrorEnvelope(
      await api.post(`${AUTH}/confirm-forgot-password`, { phone_number: user.phone, confirmation_code: lastCode(server, user.phone, 'register'), new_password: 'brand-new-pass' }),
      400,
      'auth.error.invalid_code',
    );
    await api.post(`${AUTH}/forgot-password`, { phone_number: user.phone });
    const code = lastCode(server, user.phone, 'forgot-password');
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const err = expectErrorEnvelope(
        await api.post(`${AUTH}/confirm-forgot-password`, { phone_number: user.phone, confirmation_code: wrong, new_password: 'brand-new-pass' }),
        400,
        'auth.error.invalid_code',
      );
      expect(err.details?.field).toBe('confirmation_code');
    }
    expectErrorEnvelope(
      await api.post(`${AUTH}/confirm-forgot-password`, { phone_number: user.phone, confirmation_code: code, new_password: 'brand-new-pass' }),
      400,
      'auth.error.code_locked',
    );
    // The password is unchanged and the session alive.
    expect(await loginStatus(user.phone, user.password)).toBe(200);
    expect((await user.api.get(`${AUTH}/user/me`)).status).toBe(200);
  });

  it('answers 404 for an unknown number and 400 for bad input', async () => {
    expectErrorEnvelope(
      await api.post(`${AUTH}/confirm-forgot-password`, { phone_number: uniquePhone(), confirmation_code: '123456', new_password: 'brand-new-pass' }),
      404,
      'auth.error.user_not_found',
    );
    const user = await registerAndLogin(server);
    const base = { phone_number: user.phone, confirmation_code: '123456', new_password: 'brand-new-pass' };
    for (const [field, value] of [
      ['new_password', 'short'],
      ['new_password', 12345678],
      ['confirmation_code', '12345'],
      ['confirmation_code', 123456],
      ['phone_number', null],
    ] as const) {
      const err = expectErrorEnvelope(await api.post(`${AUTH}/confirm-forgot-password`, { ...base, [field]: value }), 400, 'validation.error');
      expect(err.details?.field).toBe(field);
    }
    for (const field of ['phone_number', 'confirmation_code', 'new_password'] as const) {
      const body: Record<string, unknown> = { ...base };
      delete body[field];
      expectErrorEnvelope(await api.post(`${AUTH}/confirm-forgot-password`, body), 400, 'validation.error');
    }
  });
});

describe('POST /user/change_password', () => {
  it('changes the password and ends the other sessions only', async () => {
    const user = await registerAndLogin(server);
    const other = await login(server, user.phone, user.password);
    const res = await user.api.post(`${AUTH}/user/change_password`, { old_password: user.password, new_password: 'changed-pass-1' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ message: expect.any(String) });
    expect((await user.api.get(`${AUTH}/user/me`)).status).toBe(200);
    expect((await refresh(user)).status).toBe(200);
    expectErrorEnvelope(await other.api.get(`${AUTH}/user/me`), 401);
    expectErrorEnvelope(await refresh(other), 401);
    expect(await loginStatus(user.phone, user.password)).toBe(400);
    expect(await loginStatus(user.phone, 'changed-pass-1')).toBe(200);
  });

  it('answers 400 for a wrong old password, an unchanged or short new one, bad input', async () => {
    const user = await registerAndLogin(server);
    const err = expectErrorEnvelope(await user.api.post(`${AUTH}/user/change_password`, { old_password: 'not-my-password', new_password: 'changed-pass-1' }), 400, 'auth.error.invalid_password');
    expect(err.details?.field).toBe('old_password');
    const same = expectErrorEnvelope(await user.api.post(`${AUTH}/user/change_password`, { old_password: user.password, new_password: user.password }), 400, 'validation.error');
    expect(same.details?.field).toBe('new_password');
    expectErrorEnvelope(await user.api.post(`${AUTH}/user/change_password`, { old_password: user.password, new_password: 'short' }), 400, 'validation.error');
    expectErrorEnvelope(await user.api.post(`${AUTH}/user/change_password`, { old_password: user.password }), 400, 'validation.error');
    expectErrorEnvelope(await user.api.post(`${AUTH}/user/change_password`, { new_password: 'changed-pass-1' }), 400, 'validation.error');
    expectErrorEnvelope(await user.api.post(`${AUTH}/user/change_password`, { old_password: 12345678, new_password: 'changed-pass-1' }), 400, 'validation.error');
    expect(await loginStatus(user.phone, user.password)).toBe(200);
  });

  it('answers 401 without a token', async () => {
    expectErrorEnvelope(await api.post(`${AUTH}/user/change_password`, { old_password: 'password-123', new_password: 'changed-pass-1' }), 401);
  });
});
