// The `general` limit (SPEC §8: 100 per minute) scaled down by RATE_LIMIT_SCALE so a test can
// exceed it: the headers count down, then 429 comes with the error envelope and Retry-After.
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, expectErrorEnvelope } from '../helpers/api.js';
import { roomInTheWindow } from '../helpers/rate-window.js';

const booted = useTestServer({ RATE_LIMIT_SCALE: '0.05' });

let server: TestServer;
beforeAll(async () => {
  // general: ceil(100 × 0.05) = 5 requests per minute.
  server = booted.current;
});

describe('general rate limit', () => {
  it('counts down in X-RateLimit-* headers, then answers 429 with the error envelope', async () => {
    const api = new ApiClient(server.url);
    const path = '/authorization/api/v1/permissions';
    await roomInTheWindow();
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await api.get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);

    const refused = await api.get(path);
    const err = expectErrorEnvelope(refused, 429, 'rate_limit.error');
    expect(err.message).toBeTruthy();
    expect(refused.headers.get('x-ratelimit-limit')).toBe('5');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    const reset = Number(refused.headers.get('x-ratelimit-reset'));
    expect(Number.isInteger(reset)).toBe(true);
    expect(reset).toBeGreaterThan(Math.floor(Date.now() / 1000) - 1);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(61);
    // The refusal still carries CORS and request-id headers a browser client needs to read it.
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    expect(refused.headers.get('x-request-id')).toBeTruthy();

    // Another route counts against the same `general` budget of this client.
    expectErrorEnvelope(await api.get('/authorization/api/v1/permissions?role_names=admin'), 429);
  });

  it('never limits the health probes', async () => {
    const api = new ApiClient(server.url);
    for (let i = 0; i < 8; i++) {
      expect((await api.get('/healthz')).status).toBe(200);
      expect((await api.get('/readyz')).status).toBe(200);
    }
  });
});
