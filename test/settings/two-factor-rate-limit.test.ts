// The two_factor rate limit (5 toggles per minute per user) at its real size (RATE_LIMIT_SCALE=1).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bootServer, type TestServer } from '../helpers/server.js';
import { expectErrorEnvelope, registerAndLogin } from '../helpers/api.js';

let server: TestServer;
beforeAll(async () => {
  server = await bootServer({ SCHEDULER_ENABLED: 'false', RATE_LIMIT_SCALE: '1' });
});
afterAll(async () => {
  await server?.close();
});

it('the sixth toggle within a minute is 429 with X-RateLimit headers', async () => {
  const user = await registerAndLogin(server);
  const body = { action: 'enable', current_password: 'wrong-password', phone_number: user.phone };
  for (let i = 0; i < 5; i++) {
    const res = await user.api.post('/content/api/v1/auth/2fa/toggle', body);
    expectErrorEnvelope(res, 400, 'auth.error');
    expect(res.headers.get('x-ratelimit-limit')).toBe('5');
  }
  const sixth = await user.api.post('/content/api/v1/auth/2fa/toggle', body);
  expectErrorEnvelope(sixth, 429);
  expect(sixth.headers.get('x-ratelimit-remaining')).toBe('0');
});
