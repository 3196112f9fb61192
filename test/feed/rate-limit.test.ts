// /feed client events count against the caller's `general` limit, the counter REST uses: past it
// `content:watch` and `area:watch` are answered with a 429 ack.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll, emitAck } from '../realtime/socket-client.js';
import { connectFeed } from './feed-socket.js';
import { roomInTheWindow } from '../helpers/rate-window.js';

// general: 100 × 0.2 = 20 per minute per user; `auth` is then 1 per address, so with TRUST_PROXY
// each step of the registration comes from its own address.
const booted = useTestServer({ RATE_LIMIT_SCALE: '0.2', TRUST_PROXY: '1' });
let server: TestServer;
let user: TestUser;

beforeAll(async () => {
  server = booted.current;
  const original = globalThis.fetch;
  let n = 0;
  globalThis.fetch = (input: RequestInfo | URL, init: RequestInit = {}) =>
    original(input, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-forwarded-for': `203.0.113.${n++}` } });
  try {
    user = await registerAndLogin(server);
  } finally {
    globalThis.fetch = original;
  }
});
afterEach(() => closeAll());

describe('/feed rate limit', () => {
  it('should answer watches beyond the general limit with 429 acks', async () => {
    await roomInTheWindow();
    const socket = await connectFeed(server.url, user.token, 'websocket');
    const acks: { ok: boolean; error_code?: string }[] = [];
    for (let i = 0; i < 15; i++) acks.push(await emitAck(socket, 'content:watch', { contentIds: [] }));
    for (let i = 0; i < 15; i++) acks.push(await emitAck(socket, 'area:watch', { latitude: 10, longitude: 106 }));
    const refused = acks.filter((a) => !a.ok);
    expect(acks.filter((a) => a.ok).length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((a) => a.error_code === 'rate_limit.error.exceeded')).toBe(true);
  });
});
