// /forgot-password, /confirm-forgot-password and /user/change_password over the real server.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, expectErrorEnvelope, lastCode, login, readOutbox, registerAndLogin, uniquePhone, type TestUser } from '../helpers/api.js';
import { AUTH } from './fixtures.js';

const server = useTestServer();
const api = () => new ApiClient(server.url);
const newUser = () => registerAndLogin(server.current);
const confirmReset = (body: Record<string, unknown>) => api().post(`${AUTH}/confirm-forgot-password`, body);

const national = (e164: string) => `0${e164.slice(3)}`;
const refresh = (u: TestUser) =>
  api().post(`${AUTH}/refresh-token`, { refresh_token: u.refreshToken }, { headers: { 'x-user-username': u.username, 'x-session-id': u.sessionId } });
const loginStatus = async (phone: string, password: string) => (await api().post(`${AUTH}/login`, { phone_number: phone, password })).status;

describe('POST /forgot-password', () => {
  it('should fail with 400 for missing, wrongly typed or invalid numbers', async () => {
    expectErrorEnvelope(await api().post(`${AUTH}/forgot-password`, {}), 400, 'validation.error');
    expectErrorEnvelope(await api().post(`${AUTH}/forgot-password`, { phone_number: 901234567 }), 400, 'validation.error');
    expectErrorEnvelope(await api().post(`${AUTH}/forgot-password`, { phone_number: 'abc' }), 400);
  });

  it('should fail with 404 user_not_found for an unknown number', async () => {
    expectErrorEnvelope(await api().post(`${AUTH}/forgot-password`, { phone_number: uniquePhone() }), 404, 'auth.error.user_not_found');
  });

  it('should fail with 429 after five codes in an hour', async () => {
    const user = await newUser();
    for (let i = 0; i < 5; i++) expect((await api().post(`${AUTH}/forgot-password`, { phone_number: user.phone })).status).toBe(200);
    expectErrorEnvelope(await api().post(`${AUTH}/forgot-password`, { phone_number: user.phone }), 429);
  });

  it('should succeed sending a reset code, answered with CodeDeliveryDetails', async () => {
    const user = await newUser();
    const res = await api().post(`${AUTH}/forgot-password`, { phone_number: national(user.phone) });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      CodeDeliveryDetails: { Destination: `+84*****${user.phone.slice(-4)}`, DeliveryMedium: 'SMS', AttributeName: 'phone_number' },
    });
    const sms = readOutbox(server.current).filter((e) => e.to === user.phone && e.purpose === 'forgot-password');
    expect(sms).toHaveLength(1);
    expect(res.text).not.toContain(sms[0].code);
  });
});

describe('POST /confirm-forgot-password', () => {
  it('should fail with 400 for wrongly typed or short fields', async () => {
    const user = await newUser();
    const base = { phone_number: user.phone, confirmation_code: '123456', new_password: 'brand-new-pass' };
    for (const [field, value] of [
      ['new_password', 'short'],
      ['new_password', 12345678],
      ['confirmation_code', '12345'],
      ['confirmation_code', 123456],
      ['phone_number', null],
    ] as const) {
      const err = expectErrorEnvelope(await confirmReset({ ...base, [field]: value }), 400, 'validation.error');
      expect(err.details?.field).toBe(field);
    }
  });

  it('should fail with 400 for every missing field', async () => {
    const user = await newUser();
    const base = { phone_number: user.phone, confirmation_code: '123456', new_password: 'brand-new-pass' };
    for (const field of ['phone_number', 'confirmation_code', 'new_password'] as const) {
      const body: Record<string, unknown> = { ...base };
      delete body[field];
      expectErrorEnvelope(await confirmReset(body), 400, 'validation.error');
    }
  });

  it('should fail with 404 user_not_found for an unknown number', async () => {
    expectErrorEnvelope(
      await confirmReset({ phone_number: uniquePhone(), confirmation_code: '123456', new_password: 'brand-new-pass' }),
      404,
      'auth.error.user_not_found',
    );
  });

  it('should fail with 400 invalid_code for the code of another purpose (registration)', async () => {
    const user = await newUser();
    expectErrorEnvelope(
      await confirmReset({ phone_number: user.phone, confirmation_code: lastCode(server.current, user.phone, 'register'), new_password: 'brand-new-pass' }),
      400,
      'auth.error.invalid_code',
    );
  });

  it('should fail with 400 invalid_code for a wrong code, and code_locked after five wrong tries', async () => {
    const user = await newUser();
    await api().post(`${AUTH}/forgot-password`, { phone_number: user.phone });
    const code = lastCode(server.current, user.phone, 'forgot-password');
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const err = expectErrorEnvelope(
        await confirmReset({ phone_number: user.phone, confirmation_code: wrong, new_password: 'brand-new-pass' }),
        400,
        'auth.error.invalid_code',
      );
      expect(err.details?.field).toBe('confirmation_code');
    }
    expectErrorEnvelope(
      await confirmReset({ phone_number: user.phone, confirmation_code: code, new_password: 'brand-new-pass' }),
      400,
      'auth.error.code_locked',
    );
    // The password is unchanged and the session alive.
    expect(await loginStatus(user.phone, user.password)).toBe(200);
    expect((await user.api.get(`${AUTH}/user/me`)).status).toBe(200);
  });

  it('should fail with 400 invalid_code for a code used a second time', async () => {
    const user = await newUser();
    await api().post(`${AUTH}/forgot-password`, { phone_number: user.phone });
    const code = lastCode(server.current, user.phone, 'forgot-password');
    expect((await confirmReset({ phone_number: user.phone, confirmation_code: code, new_password: 'brand-new-pass' })).status).toBe(200);
    expectErrorEnvelope(
      await confirmReset({ phone_number: user.phone, confirmation_code: code, new_password: 'another-pass-1' }),
      400,
      'auth.error.invalid_code',
    );
  });

  it('should succeed setting the new password and end every session (their tokens answer 401)', async () => {
    const user = await newUser();
    const second = await login(server.current, user.phone, user.password);
    await api().post(`${AUTH}/forgot-password`, { phone_number: user.phone });
    const code = lastCode(server.current, user.phone, 'forgot-password');
    const res = await confirmReset({ phone_number: user.phone, confirmation_code: code, new_password: 'brand-new-pass' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ message: expect.any(String) });
    for (const session of [user, second]) {
      expectErrorEnvelope(await session.api.get(`${AUTH}/user/me`), 401, 'auth.error.session_revoked');
      expectErrorEnvelope(await refresh(session), 401);
    }
    expect(await loginStatus(user.phone, user.password)).toBe(400);
    expect(await loginStatus(user.phone, 'brand-new-pass')).toBe(200);
  });
});

describe('POST /user/change_password', () => {
  it('should fail with 401 without a token', async () => {
    expectErrorEnvelope(await api().post(`${AUTH}/user/change_password`, { old_password: 'password-123', new_password: 'changed-pass-1' }), 401);
  });

  it('should fail with 400 for missing or wrongly typed fields and a short new password', async () => {
    const user = await newUser();
    expectErrorEnvelope(await user.api.post(`${AUTH}/user/change_password`, { old_password: user.password, new_password: 'short' }), 400, 'validation.error');
    expectErrorEnvelope(await user.api.post(`${AUTH}/user/change_password`, { old_password: user.password }), 400, 'validation.error');
    expectErrorEnvelope(await user.api.post(`${AUTH}/user/change_password`, { new_password: 'changed-pass-1' }), 400, 'validation.error');
    expectErrorEnvelope(
      await user.api.post(`${AUTH}/user/change_password`, { old_password: 12345678, new_password: 'changed-pass-1' }),
      400,
      'validation.error',
    );
    expect(await loginStatus(user.phone, user.password)).toBe(200);
  });

  it('should fail with 400 when the new password equals the old one', async () => {
    const user = await newUser();
    const same = expectErrorEnvelope(
      await user.api.post(`${AUTH}/user/change_password`, { old_password: user.password, new_password: user.password }),
      400,
      'validation.error',
    );
    expect(same.details?.field).toBe('new_password');
  });

  it('should fail with 400 invalid_password for a wrong old password', async () => {
    const user = await newUser();
    const err = expectErrorEnvelope(
      await user.api.post(`${AUTH}/user/change_password`, { old_password: 'not-my-password', new_password: 'changed-pass-1' }),
      400,
      'auth.error.invalid_password',
    );
    expect(err.details?.field).toBe('old_password');
    expect(await loginStatus(user.phone, user.password)).toBe(200);
  });

  it('should succeed changing the password and end the other sessions only', async () => {
    const user = await newUser();
    const other = await login(server.current, user.phone, user.password);
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
});
