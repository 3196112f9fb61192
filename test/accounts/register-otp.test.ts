// POST /register, /send-otp, /verify-otp and /login over the real server: shapes, SPEC statuses
// and bad input.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, expectErrorEnvelope, lastCode, readOutbox, uniquePhone, uniqueUsername } from '../helpers/api.js';
import { AUTH } from './fixtures.js';

const server = useTestServer();
const api = () => new ApiClient(server.url);

const newUser = (overrides: Record<string, unknown> = {}) => ({
  username: uniqueUsername(),
  password: 'password-123',
  phone_number: uniquePhone(),
  given_name: 'Minh',
  family_name: 'Hoang',
  ...overrides,
});
/** `+84901234567` → `0901234567` (the national spelling, region VN). */
const national = (e164: string) => `0${e164.slice(3)}`;

async function registerVerified(body = newUser()) {
  expect((await api().post(`${AUTH}/register`, body)).status).toBe(201);
  const phone = body.phone_number;
  expect((await api().post(`${AUTH}/verify-otp`, { phone_number: phone, otp: lastCode(server.current, phone, 'register') })).status).toBe(200);
  return body;
}

describe('POST /register', () => {
  it('should fail with 400 for every missing field', async () => {
    for (const field of ['username', 'password', 'phone_number', 'given_name', 'family_name']) {
      const body: Record<string, unknown> = newUser();
      delete body[field];
      const err = expectErrorEnvelope(await api().post(`${AUTH}/register`, body), 400, 'validation.error');
      expect(err.details?.field).toBe(field);
    }
  });

  it('should fail with 400 for wrongly typed fields', async () => {
    for (const field of ['username', 'password', 'phone_number', 'given_name', 'family_name']) {
      const err = expectErrorEnvelope(await api().post(`${AUTH}/register`, newUser({ [field]: 12345678901 })), 400, 'validation.error');
      expect(err.details?.field).toBe(field);
    }
  });

  it('should fail with 400 for a short password', async () => {
    const short = expectErrorEnvelope(await api().post(`${AUTH}/register`, newUser({ password: 'short77' })), 400);
    expect(short.details?.field).toBe('password');
  });

  it('should fail with 400 invalid_phone_number for a number that is not one', async () => {
    expectErrorEnvelope(await api().post(`${AUTH}/register`, newUser({ phone_number: '12345' })), 400, 'auth.error.invalid_phone_number');
  });

  it('should fail with 400 for a username with a space, an unknown field, or a body that is not an object', async () => {
    expectErrorEnvelope(await api().post(`${AUTH}/register`, newUser({ username: 'a b' })), 400);
    expectErrorEnvelope(await api().post(`${AUTH}/register`, newUser({ role: 'admin' })), 400);
    expectErrorEnvelope(await api().post(`${AUTH}/register`, null), 400);
    expectErrorEnvelope(await api().post(`${AUTH}/register`, 'text'), 400);
  });

  it('should fail with 400 malformed_json for malformed JSON', async () => {
    expectErrorEnvelope(
      await api().request('POST', `${AUTH}/register`, { rawBody: '{"username":', headers: { 'content-type': 'application/json' } }),
      400,
      'request.error.malformed_json',
    );
  });

  it('should fail with 415 for a wrong content type', async () => {
    expectErrorEnvelope(
      await api().request('POST', `${AUTH}/register`, { rawBody: 'username=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      415,
    );
  });

  it('should fail with 413 for a 20 MB body', async () => {
    const huge = JSON.stringify({ ...newUser(), given_name: 'x'.repeat(20 * 1024 * 1024) });
    let status: number | string;
    try {
      status = (await api().request('POST', `${AUTH}/register`, { rawBody: huge, headers: { 'content-type': 'application/json' } })).status;
    } catch (err) {
      // The server may close the connection while the client is still sending.
      status = String((err as Error).cause ?? err);
    }
    expect(status).toBe(413);
  });

  it('should fail with 400 user_exists for a taken username in any case', async () => {
    const first = newUser();
    expect((await api().post(`${AUTH}/register`, first)).status).toBe(201);
    expectErrorEnvelope(await api().post(`${AUTH}/register`, newUser({ username: first.username.toUpperCase() })), 400, 'auth.error.user_exists');
  });

  it('should fail with 400 user_exists for a taken phone number in any spelling', async () => {
    const first = newUser();
    const phone = first.phone_number;
    expect((await api().post(`${AUTH}/register`, first)).status).toBe(201);
    expectErrorEnvelope(await api().post(`${AUTH}/register`, newUser({ phone_number: phone })), 400, 'auth.error.user_exists');
    expectErrorEnvelope(await api().post(`${AUTH}/register`, newUser({ phone_number: national(phone) })), 400, 'auth.error.user_exists');
    expectErrorEnvelope(
      await api().post(`${AUTH}/register`, newUser({ phone_number: `+84 ${phone.slice(3, 5)} ${phone.slice(5)}` })),
      400,
      'auth.error.user_exists',
    );
  });

  it('should succeed with 201, UserSub and masked CodeDeliveryDetails, and send a code by SMS', async () => {
    const body = newUser();
    const res = await api().post(`${AUTH}/register`, body);
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.data.UserSub).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.data.CodeDeliveryDetails).toMatchObject({ Destination: `+84*****${body.phone_number.slice(-4)}`, DeliveryMedium: 'SMS' });
    const sms = readOutbox(server.current).filter((e) => e.to === body.phone_number);
    expect(sms).toHaveLength(1);
    expect(sms[0].purpose).toBe('register');
    expect(sms[0].code).toMatch(/^\d{6}$/);
    expect(res.text).not.toContain(sms[0].code);
  });
});

describe('POST /send-otp', () => {
  it('should fail with 400 for missing or wrongly typed input', async () => {
    expectErrorEnvelope(await api().post(`${AUTH}/send-otp`, {}), 400, 'validation.error');
    expectErrorEnvelope(await api().post(`${AUTH}/send-otp`, { phone_number: 84901234567 }), 400, 'validation.error');
  });

  it('should fail with 404 user_not_found for an unknown number', async () => {
    expectErrorEnvelope(await api().post(`${AUTH}/send-otp`, { phone_number: uniquePhone() }), 404, 'auth.error.user_not_found');
  });

  it('should fail with 429 too_many_codes after five codes for one number within the hour', async () => {
    const body = newUser();
    await api().post(`${AUTH}/register`, body);
    for (let i = 0; i < 5; i++) expect((await api().post(`${AUTH}/send-otp`, { phone_number: body.phone_number })).status).toBe(200);
    expectErrorEnvelope(await api().post(`${AUTH}/send-otp`, { phone_number: body.phone_number }), 429, 'auth.error.too_many_codes');
  });

  it('should fail with 429 daily_code_limit once a number had ten codes within a day, whatever their purpose', async () => {
    const body = newUser();
    await api().post(`${AUTH}/register`, body);
    const phone = body.phone_number;
    // 1 (register) + 5 send-otp + 4 forgot-password: each purpose stays under its hourly limit.
    for (let i = 0; i < 5; i++) expect((await api().post(`${AUTH}/send-otp`, { phone_number: phone })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await api().post(`${AUTH}/forgot-password`, { phone_number: phone })).status).toBe(200);
    const sent = readOutbox(server.current).filter((e) => e.to === phone).length;
    expect(sent).toBe(10);
    const refused = await api().post(`${AUTH}/forgot-password`, { phone_number: phone });
    expectErrorEnvelope(refused, 429, 'auth.error.daily_code_limit');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(80_000);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(readOutbox(server.current).filter((e) => e.to === phone).length).toBe(10);
  });

  it('should succeed with CodeDeliveryDetails for any spelling of the number, and the code verifies', async () => {
    const body = newUser();
    await api().post(`${AUTH}/register`, body);
    const res = await api().post(`${AUTH}/send-otp`, { phone_number: national(body.phone_number) });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      CodeDeliveryDetails: { Destination: `+84*****${body.phone_number.slice(-4)}`, DeliveryMedium: 'SMS', AttributeName: 'phone_number' },
    });
    const code = lastCode(server.current, body.phone_number, 'send-otp');
    expect((await api().post(`${AUTH}/verify-otp`, { phone_number: body.phone_number, otp: code })).status).toBe(200);
  });
});

describe('POST /verify-otp', () => {
  it('should fail with 400 for malformed codes and missing fields', async () => {
    const body = newUser();
    await api().post(`${AUTH}/register`, body);
    for (const otp of ['12345', '1234567', 'abcdef', 123456, null]) {
      const err = expectErrorEnvelope(await api().post(`${AUTH}/verify-otp`, { phone_number: body.phone_number, otp }), 400, 'validation.error');
      expect(err.details?.field).toBe('otp');
    }
    expectErrorEnvelope(await api().post(`${AUTH}/verify-otp`, { phone_number: body.phone_number }), 400);
    expectErrorEnvelope(await api().post(`${AUTH}/verify-otp`, { otp: '123456' }), 400);
  });

  it('should fail with 404 user_not_found for an unknown number', async () => {
    expectErrorEnvelope(await api().post(`${AUTH}/verify-otp`, { phone_number: uniquePhone(), otp: '123456' }), 404, 'auth.error.user_not_found');
  });

  it('should fail with 400 invalid_code for a code used a second time', async () => {
    const body = newUser();
    await api().post(`${AUTH}/register`, body);
    const otp = lastCode(server.current, body.phone_number, 'register');
    expect((await api().post(`${AUTH}/verify-otp`, { phone_number: body.phone_number, otp })).status).toBe(200);
    expectErrorEnvelope(await api().post(`${AUTH}/verify-otp`, { phone_number: body.phone_number, otp }), 400, 'auth.error.invalid_code');
  });

  it('should fail with 400 code_locked after five wrong tries, even with the right code; a new code unlocks', async () => {
    const body = newUser();
    await api().post(`${AUTH}/register`, body);
    const otp = lastCode(server.current, body.phone_number, 'register');
    const wrong = otp === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const err = expectErrorEnvelope(await api().post(`${AUTH}/verify-otp`, { phone_number: body.phone_number, otp: wrong }), 400, 'auth.error.invalid_code');
      expect(err.details?.field).toBe('otp');
    }
    expectErrorEnvelope(await api().post(`${AUTH}/verify-otp`, { phone_number: body.phone_number, otp }), 400, 'auth.error.code_locked');
    // Still unverified; a new code unlocks.
    expectErrorEnvelope(await api().post(`${AUTH}/login`, { phone_number: body.phone_number, password: body.password }), 400, 'auth.error.phone_not_verified');
    await api().post(`${AUTH}/send-otp`, { phone_number: body.phone_number });
    expect(
      (await api().post(`${AUTH}/verify-otp`, { phone_number: body.phone_number, otp: lastCode(server.current, body.phone_number, 'send-otp') })).status,
    ).toBe(200);
  });

  it('should succeed with {message}, after which login works', async () => {
    const body = newUser();
    await api().post(`${AUTH}/register`, body);
    const res = await api().post(`${AUTH}/verify-otp`, { phone_number: body.phone_number, otp: lastCode(server.current, body.phone_number, 'register') });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, data: { message: expect.any(String) } });
    expect((await api().post(`${AUTH}/login`, { phone_number: body.phone_number, password: body.password })).status).toBe(200);
  });
});

describe('POST /login', () => {
  it('should fail with 400 for missing or wrongly typed fields', async () => {
    expectErrorEnvelope(await api().post(`${AUTH}/login`, { phone_number: uniquePhone() }), 400, 'validation.error');
    expectErrorEnvelope(await api().post(`${AUTH}/login`, { password: 'password-123' }), 400, 'validation.error');
    expectErrorEnvelope(await api().post(`${AUTH}/login`, { phone_number: 84901234567, password: 'password-123' }), 400, 'validation.error');
    expectErrorEnvelope(await api().post(`${AUTH}/login`, { phone_number: uniquePhone(), password: ['a'] }), 400, 'validation.error');
    expectErrorEnvelope(await api().request('POST', `${AUTH}/login`), 400);
  });

  it('should fail with the same 400 for an unknown or invalid number as for a wrong password', async () => {
    const body = await registerVerified();
    const wrong = expectErrorEnvelope(await api().post(`${AUTH}/login`, { phone_number: body.phone_number, password: 'wrong-password' }), 400);
    const unknown = expectErrorEnvelope(await api().post(`${AUTH}/login`, { phone_number: uniquePhone(), password: 'wrong-password' }), 400);
    const invalidNumber = expectErrorEnvelope(await api().post(`${AUTH}/login`, { phone_number: '12345', password: 'wrong-password' }), 400);
    expect(unknown.error_code).toBe(wrong.error_code);
    expect(unknown.message).toBe(wrong.message);
    expect(invalidNumber.message).toBe(wrong.message);
    expect(unknown.details).toEqual(wrong.details);
  });

  it('should fail with 400 phone_not_verified before the phone is verified', async () => {
    const body = newUser();
    await api().post(`${AUTH}/register`, body);
    expectErrorEnvelope(await api().post(`${AUTH}/login`, { phone_number: body.phone_number, password: body.password }), 400, 'auth.error.phone_not_verified');
  });

  it('should succeed with tokens and the user; the national spelling of the number is the same account', async () => {
    const body = await registerVerified();
    const res = await api().post(`${AUTH}/login`, { phone_number: national(body.phone_number), password: body.password });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({
      TokenType: 'Bearer',
      ExpiresIn: 900,
      user: { username: body.username, phone_number: body.phone_number, name: 'Minh Hoang', role: 'end_user' },
    });
    expect(d.AccessToken.split('.')).toHaveLength(3);
    expect(typeof d.RefreshToken).toBe('string');
    expect(d.SessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(d.user.sub).toMatch(/^[0-9a-f-]{36}$/);
  });
});
