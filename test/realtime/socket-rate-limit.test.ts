// Socket actions count against the same `general` limit as REST requests (SPEC §8), so a client
// cannot get around the limits by sending chat messages over the socket instead of REST.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { useTestServer } from '../helpers/fixture.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll, connect, emitAck } from './socket-client.js';

const booted = useTestServer({ RATE_LIMIT_SCALE: '0.2', TRUST_PROXY: '1' });

let server: TestServer;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  // general: 100 × 0.2 = 20 per minute per user. The scale also leaves `auth` at 1 per IP, so with
  // TRUST_PROXY each registration step comes from its own address.
  server = booted.current;
  alice = await registerVia(server, '198.51.100.1');
  bob = await registerVia(server, '198.51.100.2');
});
afterEach(() => closeAll());

/** Registers, verifies and logs in with each step from a fresh client address (auth limit is per IP). */
async function registerVia(s: TestServer, prefix: string): Promise<TestUser> {
  let n = 0;
  const original = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init: RequestInit = {}) =>
    original(input, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-forwarded-for': `${prefix}${n++}` } })) as typeof fetch;
  try {
    return await registerAndLogin(s);
  } finally {
    globalThis.fetch = original;
  }
}

describe('socket rate limit', () => {
  it('answers message:send beyond the general limit with a 429 ack, like REST', async () => {
    const room = await alice.api.post('/sns/api/v1/chat/rooms', { memberIds: [bob.userId], name: 'limits' });
    expect(room.status).toBe(201);
    const socket = await connect(server.url, '/chat', alice.token, 'websocket');
    const acks: { ok: boolean; error_code?: string }[] = [];
    for (let i = 0; i < 25; i++) acks.push(await emitAck(socket, 'message:send', { roomId: room.body.data.roomId, msg: `m${i}` }));
    const refused = acks.filter((a) => !a.ok);
    expect(acks.filter((a) => a.ok).length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((a) => a.error_code === 'rate_limit.error.exceeded')).toBe(true);
    // The socket sends spent the same counter REST uses.
    const rest = await alice.api.get('/sns/api/v1/chat/rooms');
    expect(rest.status).toBe(429);
  });
});
