// POST /register, /send-otp, /verify-otp and /login over the real server: shapes, SPEC statuses
// and bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootServer, type TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, lastCode, readOutbox, uniquePhone, uniqueUsername } from '../helpers/api.js';
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
  expect((await api.post(`${AUTH}/register`, body)).status).toBe(201);
  const phone = body.phone_number as string;
  expect((await api.post(`${AUTH}/verify-otp`, { phone_number: phone, otp: lastCode(server, phone, 'register') })).status).toBe(200);
  return body;
}

describe('POST /register', () => {
  it('answers 201 with UserSub and masked CodeDeliveryDetails, and sends a code by SMS', async () => {
    const body = newUser();
    const res = await api.post(`${AUTH}/register`, body);
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.data.UserSub).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.data.CodeDeliveryDetails).toMatchObject({ Destination: `+84*****${body.phone_number.slice(-4)}`, DeliveryMedium: 'SMS' });
    const sms = readOutbox(server).filter((e) => e.to === body.phone_number);
    expect(sms).toHaveLength(1);
    expect(sms[0].purpose).toBe('register');
    expect(sms[0].code).toMatch(/^\d{6}$/);
    expect(res.text).not.toContain(sms[0].code);
  });

  it('answers 400 for every missing field', async () => {
    for (const field of ['username', 'password', 'phone_number', 'given_name', 'family_name']) {
      const body: Record<string, unknown> = newUser();
      delete body[field];
      const err = expectErrorEnvelope(await api.post(`${AUTH}/register`, body), 400, 'validation.error');
      expect(err.details?.field).toBe(field);
    }
  });

  it('answers 400 for wrongly typed fields, short passwords, bad phone numbers, unknown fields', async () => {
    for (const field of ['username', 'password', 'phone_number', 'given_name', 'family_name']) {
      const err = expectErrorEnvelope(await api.post(`${AUTH}/register`, newUser({ [field]: 12345678901 })), 400, 'validation.error');
      expect(err.details?.field).toBe(field);
    }
    const short = expectErrorEnvelope(await api.post(`${AUTH}/register`, newUser({ password: 'short77' })), 400);
    expect(short.details?.field).toBe('password');
    expectErrorEnvelope(await api.post(`${AUTH}/register`, newUser({ phone_number: '12345' })), 400, 'auth.error.invalid_phone_number');
    expectErrorEnvelope(await api.post(`${AUTH}/register`, newUser({ username: 'a b' })), 400);
    expectErrorEnvelope(await api.post(`${AUTH}/register`, newUser({ role: 'admin' })), 400);
    expectErrorEnvelope(await api.post(`${AUTH}/register`, null), 400);
    expectErrorEnvelope(await api.post(`${AUTH}/register`, 'text'), 400);
  });

  it('answers 400 for malformed JSON, 415 for a wrong content type, 413 for a 20 MB body', async () => {
    expectErrorEnvelope(await api.request('POST', `${AUTH}/register`, { rawBody: '{"username":', headers: { 'content-type': 'application/json' } }), 400, 'request.error.malformed_json');
    expectErrorEnvelope(await api.request('POST', `${AUTH}/register`, { rawBody: 'username=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415);
    const huge = JSON.stringify({ ...newUser(), given_name: 'x'.repeat(20 * 1024 * 1024) });
    let status: number | string;
    try {
      status = (await api.request('POST', `${AUTH}/register`, { rawBody: huge, headers: { 'content-type': 'application/json' } })).status;
    } catch (err) {
      // The server may close the connection while the client is still sending.
      status = String((err as Error).cause ?? err);
    }
    expect(status).toBe(413);
  });

  it('refuses a duplicate username (any case) or phone number (any spelling) with 400', async () => {
    const first = newUser();
    expect((await api.post(`${AUTH}/register`, first)).status).toBe(201);
    expectErrorEnvelope(await api.post(`${AUTH}/register`, newUser({ username: first.username.toUpperCase() })), 400, 'auth.error.user_exists');
    expectErrorEnvelope(await api.post(`${AUTH}/register`, newUser({ phone_number: first.phone_number })), 400, 'auth.error.user_exists');
    expectErrorEnvelope(await api.post(`${AUTH}/register`, newUser({ phone_number: national(first.phone_number as string) })), 400, 'auth.error.user_exists');
    expectErrorEnvelope(await api.post(`${AUTH}/register`, newUser({ phone_number: `+84 ${(first.phone_number as string).slice(3, 5)} ${(first.phone_number as string).slice(5)}` })), 400, 'auth.error.user_exists');
  });
});

describe('POST /send-otp', () => {
  it('sends a fresh code (any spelling of the number) answered with CodeDeliveryDetails', async () => {
    const body = newUser();
    await api.post(`${AUTH}/register`, body);
    const res = await api.post(`${AUTH}/send-otp`, { phone_number: national(body.phone_number as string) });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ CodeDeliveryDetails: { Destination: `+84*****${(body.phone_number as string).slice(-4)}`, DeliveryMedium: 'SMS', AttributeName: 'phone_number' } });
    const code = lastCode(server, body.phone_number as string, 'send-otp');
    expect((await api.post(`${AUTH}/verify-otp`, { phone_number: body.phone_number, otp: code })).status).toBe(200);
  });

  it('answers 404 for an unknown number, 400 for missing or wrongly typed input', async () => {
    expectErrorEnvelope(await api.post(`${AUTH}/send-otp`, { phone_number: uniquePhone() }), 404, 'auth.error.user_not_found');
    expectErrorEnvelope(await api.post(`${AUTH}/send-otp`, {}), 400, 'validation.error');
    expectErrorEnvelope(await api.post(`${AUTH}/send-otp`, { phone_number: 84901234567 }), 400, 'validation.error');
  });

  it('answers 429 once a number had ten codes within a day, whatever their purpose', async () => {
    const body = newUser();
    await api.post(`${AUTH}/register`, body);
    const phone = body.phone_number as string;
    // 1 (register) + 5 send-otp + 4 forgot-password: each purpose stays under its hourly limit.
    for (let i = 0; i < 5; i++) expect((await api.post(`${AUTH}/send-otp`, { phone_number: phone })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await api.post(`${AUTH}/forgot-password`, { phone_number: phone })).status).toBe(200);
    const sent = readOutbox(server).filter((e) => e.to === phone).length;
    expect(sent).toBe(10);
    const refused = await api.post(`${AUTH}/forgot-password`, { phone_number: phone });
    expectErrorEnvelope(refused, 429, 'auth.error.daily_code_limit');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(80_000);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(readOutbox(server).filter((e) => e.to === phone).length).toBe(10);
  });

  it('answers 429 after five codes for one number within the hour', async () => {
    const body = newUser();
    await api.post(`${AUTH}/register`, body);
    for (let i = 0; i < 5; i++) expect((await api.post(`${AUTH}/send-otp`, { phone_number: body.phone_number })).status).toBe(200);
    expectErrorEnvelope(await api.post(`${AUTH}/send-otp`, { phone_number: body.phone_number }), 429, 'auth.error.too_many_codes');
  });
});

describe('POST /verify-otp', () => {
  it('verifies with the code: {message}, then login works', async () => {
    const body = newUser();
    await api.post(`${AUTH}/register`, body);
    const res = await api.post(`${AUTH}/verify-otp`, { phone_number: body.phone_number, otp: lastCode(server, body.phone_number as string, 'register') });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, data: { message: expect.any(String) } });
    expect((await api.post(`${AUTH}/login`, { phone_number: body.phone_number, password: body.password })).status).toBe(200);
  });

  it('a code is single use', async () => {
    const body = newUser();
    await api.post(`${AUTH}/register`, body);
    const otp = lastCode(server, body.phone_number as string, 'register');
    expect((await api.post(`${AUTH}/verify-otp`, { phone_number: body.phone_number, otp })).status).toBe(200);
    expectErrorEnvelope(await api.post(`${AUTH}/verify-otp`, { phone_number: body.phone_number, otp }), 400, 'auth.error.invalid_code');
  });

  it('locks the code after five wrong tries: the sixth is refused even with the right code', async () => {
    const body = newUser();
    await api.post(`${AUTH}/register`, body);
    const otp = lastCode(server, body.phone_number as string, 'register');
    const wrong = otp === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const err = expectErrorEnvelope(await api.post(`${AUTH}/verify-otp`, { phone_number: body.phone_number, otp: wrong }), 400, 'auth.error.invalid_code');
      expect(err.details?.field).toBe('otp');
    }
    expectErrorEnvelope(await api.post(`${AUTH}/verify-otp`, { phone_number: body.phone_number, otp }), 400, 'auth.error.code_locked');
    // Still unverified; a new code unlocks.
    expectErrorEnvelope(await api.post(`${AUTH}/login`, { phone_number: body.phone_number, password: body.password }), 400, 'auth.error.phone_not_verified');
    await api.post(`${AUTH}/send-otp`, { phone_number: body.phone_number });
    expect((await api.post(`${AUTH}/verify-otp`, { phone_number: body.phone_number, otp: lastCode(server, body.phone_number as string, 'send-otp') })).status).toBe(200);
  });

  it('answers 404 for an unknown number and 400 for malformed codes', async () => {
    expectErrorEnvelope(await api.post(`${AUTH}/verify-otp`, { phone_number: uniquePhone(), otp: '123456' }), 404, 'auth.error.user_not_found');
    const body = newUser();
    await api.post(`${AUTH}/register`, body);
    for (const otp of ['12345', '1234567', 'abcdef', 123456, null]) {
      const err = expectErrorEnvelope(await api.post(`${AUTH}/verify-otp`, { phone_number: body.phone_number, otp }), 400, 'validation.error');
      expect(err.details?.field).toBe('otp');
    }
    expectErrorEnvelope(await api.post(`${AUTH}/verify-otp`, { phone_number: body.phone_number }), 400);
    expectErrorEnvelope(await api.post(`${AUTH}/verify-otp`, { otp: '123456' }), 400);
  });
});

describe('POST /login', () => {
  it('answers tokens and the user; the national spelling of the number is the same account', async () => {
    const body = await registerVerified();
    const res = await api.post(`${AUTH}/login`, { phone_number: national(body.phone_number as string), password: body.password });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ TokenType: 'Bearer', ExpiresIn: 900, user: { username: body.username, phone_number: body.phone_number, name: 'Minh Hoang', role: 'end_user' } });
    expect(d.AccessToken.split('.')).toHaveLength(3);
    expect(typeof d.RefreshToken).toBe('string');
    expect(d.SessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(d.user.sub).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives an unknown number the same 400 as a wrong password', async () => {
    const body = await registerVerified();
    const wrong = expectErrorEnvelope(await api.post(`${AUTH}/login`, { phone_number: body.phone_number, password: 'wrong-password' }), 400);
    const unknown = expectErrorEnvelope(await api.post(`${AUTH}/login`, { phone_number: uniquePhone(), password: 'wrong-password' }), 400);
    const invalidNumber = expectErrorEnvelope(await api.post(`${AUTH}/login`, { phone_number: '12345', password: 'wrong-password' }), 400);
    expect(unknown.error_code).toBe(wrong.error_code);
    expect(unknown.message).toBe(wrong.message);
    expect(invalidNumber.message).toBe(wrong.message);
    expect(unknown.details).toEqual(wrong.details);
  });

  it('refuses login before the phone is verified', async () => {
    const body = newUser();
    await api.post(`${AUTH}/register`, body);
    expectErrorEnvelope(await api.post(`${AUTH}/login`, { phone_number: body.phone_number, password: body.password }), 400, 'auth.error.phone_not_verified');
  });

  it('answers 400 for missing or wrongly typed fields', async () => {
    expectErrorEnvelope(await api.post(`${AUTH}/login`, { phone_number: uniquePhone() }), 400, 'validation.error');
    expectErrorEnvelope(await api.post(`${AUTH}/login`, { password: 'password-123' }), 400, 'validation.error');
    expectErrorEnvelope(await api.post(`${AUTH}/login`, { phone_number: 84901234567, password: 'password-123' }), 400, 'validation.error');
    expectErrorEnvelope(await api.post(`${AUTH}/login`, { phone_number: uniquePhone(), password: ['a'] }), 400, 'validation.error');
    expectErrorEnvelope(await api.request('POST', `${AUTH}/login`), 400);
  });
});
