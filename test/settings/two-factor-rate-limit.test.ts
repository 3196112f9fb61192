// The two_factor rate limit (5 toggles per minute per user) at its real size (RATE_LIMIT_SCALE=1).
import { expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { expectErrorEnvelope, registerAndLogin } from '../helpers/api.js';

const booted = useTestServer({ SCHEDULER_ENABLED: 'false', RATE_LIMIT_SCALE: '1' });

it('should fail with 429 and X-RateLimit headers at the sixth toggle within a minute', async () => {
  const user = await registerAndLogin(booted.current);
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
