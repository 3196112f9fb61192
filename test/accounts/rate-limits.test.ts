// SPEC §8 limits at their real values (RATE_LIMIT_SCALE=1). TRUST_PROXY lets each test act from
// its own client address (X-Forwarded-For), so the per-IP `auth` limit of one test does not
// spill into the next.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, expectErrorEnvelope, lastCode, uniquePhone, uniqueUsername, type ApiResponse } from '../helpers/api.js';
import { AUTH, avatarForm, makeImage, putAvatar } from './fixtures.js';

const server = useTestServer({ RATE_LIMIT_SCALE: '1', TRUST_PROXY: '1' });
const api = () => new ApiClient(server.url);
let ipCounter = 1;
const freshIp = () => `203.0.113.${ipCounter++}`;

function expectRateHeaders(res: ApiResponse, limit: number, remaining: number) {
  expect(res.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  const reset = Number(res.headers.get('x-ratelimit-reset'));
  expect(Number.isInteger(reset)).toBe(true);
  expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
  expect(reset).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 61);
}

/** A verified, logged-in user created from its own address (3 `auth` requests there). */
async function newUser() {
  const ip = freshIp();
  const headers = { 'x-forwarded-for': ip };
  const phone = uniquePhone();
  const username = uniqueUsername();
  expect(
    (await api().post(`${AUTH}/register`, { username, password: 'password-123', phone_number: phone, given_name: 'R', family_name: 'L' }, { headers })).status,
  ).toBe(201);
  expect((await api().post(`${AUTH}/verify-otp`, { phone_number: phone, otp: lastCode(server.current, phone, 'register') }, { headers })).status).toBe(200);
  const res = await api().post(`${AUTH}/login`, { phone_number: phone, password: 'password-123' }, { headers });
  expect(res.status).toBe(200);
  return { userId: res.body.data.user.sub as string, username, phone, api: api().withToken(res.body.data.AccessToken) };
}

describe('auth limit: 5 requests per minute per IP', () => {
  it('should fail with 429 on the sixth quick login from one IP, with the X-RateLimit headers', async () => {
    const headers = { 'x-forwarded-for': freshIp() };
    for (let i = 0; i < 5; i++) {
      const res = await api().post(`${AUTH}/login`, { phone_number: uniquePhone(), password: 'password-123' }, { headers });
      expect(res.status).toBe(400);
      expectRateHeaders(res, 5, 4 - i);
    }
    const limited = await api().post(`${AUTH}/login`, { phone_number: uniquePhone(), password: 'password-123' }, { headers });
    expectErrorEnvelope(limited, 429, 'rate_limit.error.exceeded');
    expectRateHeaders(limited, 5, 0);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // The limit is shared by the public account endpoints of that address...
    expectErrorEnvelope(
      await api().post(
        `${AUTH}/register`,
        { username: uniqueUsername(), password: 'password-123', phone_number: uniquePhone(), given_name: 'A', family_name: 'B' },
        { headers },
      ),
      429,
    );
    expectErrorEnvelope(await api().post(`${AUTH}/send-otp`, { phone_number: uniquePhone() }, { headers }), 429);
    expectErrorEnvelope(await api().post(`${AUTH}/forgot-password`, { phone_number: uniquePhone() }, { headers }), 429);
    // ...and does not touch another address.
    expect(
      (await api().post(`${AUTH}/login`, { phone_number: uniquePhone(), password: 'password-123' }, { headers: { 'x-forwarded-for': freshIp() } })).status,
    ).toBe(400);
  });

  it('should count every address of one IPv6 /64 as one client', async () => {
    const inSubnet = (host: string) => ({ 'x-forwarded-for': `2001:db8:77:${ipCounter++}::${host}` });
    const subnet = inSubnet('1')['x-forwarded-for'].replace(/::1$/, '');
    for (let i = 1; i <= 5; i++) {
      const res = await api().post(
        `${AUTH}/login`,
        { phone_number: uniquePhone(), password: 'password-123' },
        { headers: { 'x-forwarded-for': `${subnet}::${i.toString(16)}` } },
      );
      expect(res.status).toBe(400);
    }
    // Another address of the same /64, however it is written, shares the spent budget...
    const sameSubnet = `${subnet.replace('2001:db8', '2001:0db8')}:ffff:0:0:9`;
    expectErrorEnvelope(
      await api().post(`${AUTH}/login`, { phone_number: uniquePhone(), password: 'password-123' }, { headers: { 'x-forwarded-for': sameSubnet } }),
      429,
      'rate_limit.error.exceeded',
    );
    // ...and the next /64 has its own.
    expect((await api().post(`${AUTH}/login`, { phone_number: uniquePhone(), password: 'password-123' }, { headers: inSubnet('1') })).status).toBe(400);
  });

  it('should fail with 429 on register, send-otp and forgot-password each past the limit', async () => {
    for (const [path, body] of [
      ['register', () => ({ username: uniqueUsername(), password: 'password-123', phone_number: uniquePhone(), given_name: 'A', family_name: 'B' })],
      ['send-otp', () => ({ phone_number: uniquePhone() })],
      ['forgot-password', () => ({ phone_number: uniquePhone() })],
    ] as const) {
      const headers = { 'x-forwarded-for': freshIp() };
      for (let i = 0; i < 5; i++) expect((await api().post(`${AUTH}/${path}`, body(), { headers })).status).not.toBe(429);
      expectErrorEnvelope(await api().post(`${AUTH}/${path}`, body(), { headers }), 429);
    }
  });
});

describe('per-user limits', () => {
  it('should fail with 429 on the sixth change_password of a user within a minute, whatever the address', async () => {
    const user = await newUser();
    for (let i = 0; i < 5; i++) {
      const res = await user.api.post(
        `${AUTH}/user/change_password`,
        { old_password: 'wrong-password', new_password: 'changed-pass-1' },
        { headers: { 'x-forwarded-for': freshIp() } },
      );
      expectErrorEnvelope(res, 400, 'auth.error.invalid_password');
    }
    const limited = await user.api.post(
      `${AUTH}/user/change_password`,
      { old_password: 'password-123', new_password: 'changed-pass-1' },
      { headers: { 'x-forwarded-for': freshIp() } },
    );
    expectErrorEnvelope(limited, 429);
    expectRateHeaders(limited, 5, 0);
  });

  it('should fail with 429 on the sixth avatar upload of a user within a minute', async () => {
    const user = await newUser();
    const png = await makeImage('png', 8, 8);
    const identity = { 'x-user-id': user.userId, 'x-user-username': user.username };
    for (let i = 0; i < 5; i++) expect((await putAvatar(user.api, avatarForm(png, 'a.png'), identity)).status).toBe(200);
    expectErrorEnvelope(await putAvatar(user.api, avatarForm(png, 'a.png'), identity), 429);
  });

  it('should fail with 429 on follow once the general limit (100 per minute per user) is spent', async () => {
    // The general limit counts in windows aligned to the minute (http/local-first-limit.ts): the
    // 101 requests must fall in one, so a minute's last seconds are waited out first.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
    const user = await newUser();
    const target = await newUser();
    let last: ApiResponse | null = null;
    for (let i = 0; i < 100; i++) {
      last = await user.api.get(`${AUTH}/user/me`);
      if (last.status !== 200) break;
    }
    expect(last?.status).toBe(200);
    const limited = await user.api.post(`${AUTH}/users/${target.userId}/follow`, undefined, { headers: { 'x-user-id': user.userId } });
    expectErrorEnvelope(limited, 429);
    expectRateHeaders(limited, 100, 0);
  }, 60_000);
});
