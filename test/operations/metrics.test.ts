// GET /metrics over the real server (CONTRACT §20): the counters move with REST and socket traffic
// (websocket and polling), route labels are path templates, the database, transport and process
// figures are there, and the endpoint is protected (loopback only without METRICS_TOKEN, the
// bearer token with it) and never rate limited. In the server pass (TEST_REDIS_URL) the adapter's
// publishes and round-trips are checked too.
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll, connect, emitAck, nextEvent, type Transport } from '../realtime/socket-client.js';
import { sampleSum } from './prometheus-text.js';
import { UPLOAD, createContent, fakeMp4, form, waitForJobEnd } from '../media/media-helpers.js';
import { isLoopback, metricsRefusal, tokenMatches } from '../../http/metrics-route.js';
import { eventOfPacket } from '../../realtime/transport/metrics.js';
import { roomInTheWindow } from '../helpers/rate-window.js';

const clustered = Boolean(process.env.TEST_REDIS_URL);

async function scrape(baseUrl: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`${baseUrl}/metrics`, { headers });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** An address of this machine that is not loopback, if it has one. */
function externalAddress(): string | undefined {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

afterEach(() => closeAll());

describe('metrics after REST and socket traffic', () => {
  // Listens on every interface, so the loopback rule can be tried from another address.
  const booted = useTestServer({ HOST: '0.0.0.0' });
  let server: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    server = booted.current;
    alice = await registerAndLogin(server);
    bob = await registerAndLogin(server);
  });

  it('serves the Prometheus text format to a loopback client', async () => {
    const res = await scrape(server.url);
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.text).toContain('# TYPE http_requests_total counter');
    expect(sampleSum(res.text, 'transport_info', { transport: 'uws-native' })).toBe(1);
    // Process figures: event-loop delay and memory.
    expect(sampleSum(res.text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sampleSum(res.text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    // The queue as the database has it.
    expect(sampleSum(res.text, 'video_jobs', { state: 'queued' })).toBe(0);
    expect(sampleSum(res.text, 'db_pool_connections', { state: 'open' })).toBeGreaterThanOrEqual(1);
  });

  it('reports the transport on /readyz', async () => {
    const res = await fetch(`${server.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', transport: 'uws-native', media_storage: expect.stringMatching(/^local:/) });
  });

  it('counts REST answers by route template, method and status, with latency', async () => {
    const before = (await scrape(server.url)).text;
    const id = randomUUID();
    const missing = await alice.api.get(`/api/v1/content/${id}`);
    expect(missing.status).toBe(404);
    expect((await alice.api.get('/nowhere/at/all')).status).toBe(404);
    for (let i = 0; i < 3; i++) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const after = (await scrape(server.url)).text;

    const count = (text: string, labels: Record<string, string>) => sampleSum(text, 'http_requests_total', labels) ?? 0;
    expect(count(after, { method: 'GET', route: '/healthz', status: '200' }) - count(before, { method: 'GET', route: '/healthz', status: '200' })).toBe(3);
    expect(
      count(after, { method: 'GET', route: '/api/v1/content/:id', status: '404' }) -
        count(before, { method: 'GET', route: '/api/v1/content/:id', status: '404' }),
    ).toBe(1);
    expect(count(after, { method: 'GET', route: '(unmatched)', status: '404' }) - count(before, { method: 'GET', route: '(unmatched)', status: '404' })).toBe(
      1,
    );
    // Raw URLs never become labels.
    expect(after).not.toContain(id);
    expect(after).not.toContain('/nowhere');
    const latency = (text: string) => sampleSum(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/healthz' }) ?? 0;
    expect(latency(after) - latency(before)).toBe(3);
    // The scrape itself is labelled by its own route.
    expect(count(after, { route: '/metrics', status: '200' })).toBeGreaterThanOrEqual(1);
    // Every repository query is timed.
    expect(sampleSum(after, 'db_query_duration_seconds_count')!).toBeGreaterThan(sampleSum(before, 'db_query_duration_seconds_count')!);
  });

  it('counts read cache lookups: a repeated read is a hit of the session and profile caches', async () => {
    const before = (await scrape(server.url)).text;
    for (let i = 0; i < 3; i++) expect((await alice.api.get('/auth/api/v1/user/me')).status).toBe(200);
    const after = (await scrape(server.url)).text;
    const lookups = (text: string, cache: string, result: string) => sampleSum(text, 'read_cache_lookups_total', { cache, result }) ?? 0;
    // The first of the three may miss (the cache may be empty); the next two are served from memory.
    expect(lookups(after, 'sessions', 'hit') - lookups(before, 'sessions', 'hit')).toBeGreaterThanOrEqual(2);
    expect(lookups(after, 'profiles', 'hit') - lookups(before, 'profiles', 'hit')).toBeGreaterThanOrEqual(2);
    expect(sampleSum(after, 'read_cache_entries', { cache: 'sessions' })!).toBeGreaterThanOrEqual(1);
  });

  describe.each(['websocket', 'polling'] as Transport[])('sockets over %s', (transport) => {
    it('counts connected sockets per namespace and the events delivered to them', async () => {
      const room = await alice.api.post('/sns/api/v1/chat/rooms', { memberIds: [bob.userId], name: `metrics-${transport}` });
      expect(room.status).toBe(201);
      const roomId = room.body.data.roomId as string;
      const before = (await scrape(server.url)).text;

      const aliceSocket = await connect(server.url, '/chat', alice.token, transport);
      const bobSocket = await connect(server.url, '/chat', bob.token, transport);
      expect(await emitAck(aliceSocket, 'room:join', { roomId })).toEqual({ ok: true });
      expect(await emitAck(bobSocket, 'room:join', { roomId })).toEqual({ ok: true });
      const received = nextEvent(bobSocket, 'message:new', (m: { msg?: string }) => m.msg === 'counted');
      const sent = await emitAck(aliceSocket, 'message:send', { roomId, msg: 'counted' });
      expect(sent.ok).toBe(true);
      await received;

      const during = (await scrape(server.url)).text;
      expect(sampleSum(during, 'socketio_sockets', { namespace: '/chat' })).toBeGreaterThanOrEqual(2);
      const connections = (t: string) => sampleSum(t, 'socketio_connections_total', { namespace: '/chat' }) ?? 0;
      expect(connections(during) - connections(before)).toBe(2);
      const delivered = (t: string) => sampleSum(t, 'socketio_events_delivered_total', { namespace: '/chat', event: 'message:new' }) ?? 0;
      // Both members' sockets are in the room.
      expect(delivered(during) - delivered(before)).toBeGreaterThanOrEqual(2);

      if (clustered) {
        // The room emit went through the Redis adapter to the other nodes, and each scrape asks
        // the adapter how many nodes there are (a round-trip).
        const publishes = (t: string) => sampleSum(t, 'socketio_adapter_publishes_total', { namespace: '/chat', operation: 'broadcast' }) ?? 0;
        expect(publishes(during) - publishes(before)).toBeGreaterThanOrEqual(1);
        expect(sampleSum(during, 'socketio_adapter_nodes')).toBeGreaterThanOrEqual(1);
        expect(sampleSum(during, 'socketio_adapter_roundtrip_seconds_count', { operation: 'server_count' })).toBeGreaterThanOrEqual(1);
        // The rooms adapter (the default): the room's channel is subscribed, and the emit came back on it.
        expect(sampleSum(during, 'socketio_adapter_room_subscriptions')).toBeGreaterThanOrEqual(1);
        expect(
          (sampleSum(during, 'socketio_adapter_received_total') ?? 0) - (sampleSum(before, 'socketio_adapter_received_total') ?? 0),
        ).toBeGreaterThanOrEqual(1);
      } else {
        expect(sampleSum(during, 'socketio_adapter_publishes_total')).toBeUndefined();
        expect(sampleSum(during, 'socketio_adapter_received_total')).toBe(0);
      }

      aliceSocket.close();
      bobSocket.close();
      // The gauge follows the sockets that leave.
      const deadline = Date.now() + 15_000;
      let left = sampleSum((await scrape(server.url)).text, 'socketio_sockets', { namespace: '/chat' });
      while (left !== 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        left = sampleSum((await scrape(server.url)).text, 'socketio_sockets', { namespace: '/chat' });
      }
      expect(left).toBe(0);
    });
  });

  it('times video processing attempts and counts their results', { timeout: 90_000 }, async () => {
    const before = (await scrape(server.url)).text;
    const contentId = await createContent(alice);
    // A file that only looks like a video: the job runs once and ends failed, without transcoding.
    const upload = await alice.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: fakeMp4(), filename: 'fake.mp4' }]) });
    expect(upload.status).toBe(200);
    expect((await waitForJobEnd(server.service, contentId)).status).toBe('failed');
    // The attempt is observed as the worker returns, just after the job row is written.
    const runs = (t: string) => sampleSum(t, 'video_job_run_duration_seconds_count', { outcome: 'processed' }) ?? 0;
    let after = (await scrape(server.url)).text;
    const deadline = Date.now() + 10_000;
    while (runs(after) === runs(before) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      after = (await scrape(server.url)).text;
    }
    expect(runs(after) - runs(before)).toBe(1);
    const failed = (t: string) => sampleSum(t, 'video_jobs_finished_total', { result: 'failed' }) ?? 0;
    expect(failed(after) - failed(before)).toBe(1);
    expect(sampleSum(after, 'video_jobs', { state: 'running' })).toBe(0);
  });

  it('refuses a request relayed by a proxy with 403 when no token is set', async () => {
    const res = await scrape(server.url, { 'x-forwarded-for': '203.0.113.9' });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toMatchObject({ success: false, error_code: 'metrics.error.forbidden' });
  });

  it('refuses a client that is not on loopback with 403 when no token is set', async (ctx) => {
    const address = externalAddress();
    if (!address) ctx.skip();
    const res = await scrape(`http://${address}:${server.service.port}`);
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toMatchObject({ success: false, error_code: 'metrics.error.forbidden' });
    expect(res.text).not.toContain('http_requests_total');
  });
});

describe('metrics with METRICS_TOKEN', () => {
  const token = 'metrics-token-0123456789abcdef';
  const booted = useTestServer({ METRICS_TOKEN: token });

  it('answers 401 without the token, with a wrong one, or another scheme', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: `Bearer ${token}x` },
      { authorization: 'Bearer short' },
      { authorization: `Basic ${token}` },
      { authorization: token },
    ]) {
      const res = await scrape(booted.url, headers);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.text)).toMatchObject({ success: false, error_code: 'metrics.error.unauthorized' });
    }
    const res = await fetch(`${booted.url}/metrics`);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('answers the token from any address (the token replaces the loopback rule)', async () => {
    expect((await scrape(booted.url, { authorization: `Bearer ${token}` })).status).toBe(200);
    const relayed = await scrape(booted.url, { authorization: `Bearer ${token}`, 'x-forwarded-for': '203.0.113.9' });
    expect(relayed.status).toBe(200);
    expect(relayed.text).toContain('http_requests_total');
  });

  it('refuses a token that is too short in the configuration', async () => {
    const { loadConfig } = await import('../../src/config.js');
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
  });
});

describe('rate limits and /metrics', () => {
  // general: 100 × 0.2 = 20 per minute; TRUST_PROXY so each registration step has its own address.
  const booted = useTestServer({ RATE_LIMIT_SCALE: '0.2', TRUST_PROXY: '1' });

  /** Registers with each request from a fresh client address (the auth limit is 1 per IP here). */
  async function registerFromFreshAddresses(server: TestServer, prefix: string): Promise<TestUser> {
    let n = 0;
    const original = globalThis.fetch;
    globalThis.fetch = (input: RequestInfo | URL, init: RequestInit = {}) =>
      original(input, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-forwarded-for': `${prefix}${n++}` } });
    try {
      return await registerAndLogin(server);
    } finally {
      globalThis.fetch = original;
    }
  }

  it('is never rate limited', async () => {
    for (let i = 0; i < 30; i++) expect((await scrape(booted.url)).status).toBe(200);
  });

  it('counts refusals of REST requests and of socket events', async () => {
    const server = booted.current;
    const user = await registerFromFreshAddresses(server, '198.51.100.');
    const other = await registerFromFreshAddresses(server, '198.51.101.');
    const before = (await scrape(server.url)).text;
    const statuses: number[] = [];
    await roomInTheWindow(30_000);
    for (let i = 0; i < 25; i++) statuses.push((await fetch(`${server.url}/content/api/v1/all`, { headers: { 'x-forwarded-for': '192.0.2.77' } })).status);
    expect(statuses).toContain(429);
    const httpRefused = statuses.filter((s) => s === 429).length;

    const room = await user.api.post('/sns/api/v1/chat/rooms', { memberIds: [other.userId], name: 'limits' });
    expect(room.status).toBe(201);
    const socket = await connect(server.url, '/chat', user.token, 'websocket');
    let socketRefused = 0;
    for (let i = 0; i < 25; i++) {
      const ack = await emitAck(socket, 'message:send', { roomId: room.body.data.roomId, msg: `m${i}` });
      if (!ack.ok && ack.error_code === 'rate_limit.error.exceeded') socketRefused++;
    }
    expect(socketRefused).toBeGreaterThan(0);

    const after = (await scrape(server.url)).text;
    const refusals = (t: string, door: string) => sampleSum(t, 'rate_limit_refusals_total', { limit: 'general', door }) ?? 0;
    expect(refusals(after, 'http') - refusals(before, 'http')).toBeGreaterThanOrEqual(httpRefused);
    expect(refusals(after, 'socket') - refusals(before, 'socket')).toBe(socketRefused);
    expect(
      (sampleSum(after, 'http_requests_total', { status: '429' }) ?? 0) - (sampleSum(before, 'http_requests_total', { status: '429' }) ?? 0),
    ).toBeGreaterThanOrEqual(httpRefused);
  });
});

describe('the access rules, directly', () => {
  it('knows loopback addresses', () => {
    for (const ip of ['127.0.0.1', '127.8.9.10', '::1']) expect(isLoopback(ip)).toBe(true);
    for (const ip of ['192.0.2.2', '10.0.0.1', '::', '0.0.0.0', '', 'localhost', '128.0.0.1', '::ffff:10.0.0.1']) expect(isLoopback(ip)).toBe(false);
  });

  it('compares tokens whole', () => {
    expect(tokenMatches('abcdefghijklmnop', 'abcdefghijklmnop')).toBe(true);
    expect(tokenMatches('abcdefghijklmnoq', 'abcdefghijklmnop')).toBe(false);
    expect(tokenMatches('abcdefghijklmno', 'abcdefghijklmnop')).toBe(false);
    expect(tokenMatches('', 'abcdefghijklmnop')).toBe(false);
  });

  it('decides by token when one is set, by address otherwise', () => {
    const at = (ip: string, headers: Record<string, string> = {}) => ({ ip, headers });
    expect(metricsRefusal(at('127.0.0.1'), undefined)).toBeNull();
    expect(metricsRefusal(at('192.0.2.2'), undefined)?.status).toBe(403);
    expect(metricsRefusal(at('127.0.0.1', { forwarded: 'for=192.0.2.60' }), undefined)?.status).toBe(403);
    expect(metricsRefusal(at('127.0.0.1'), 'abcdefghijklmnop')?.status).toBe(401);
    expect(metricsRefusal(at('192.0.2.2', { authorization: 'Bearer abcdefghijklmnop' }), 'abcdefghijklmnop')).toBeNull();
  });
});

describe('reading the event of an encoded packet', () => {
  it('finds the namespace and event of event packets only', () => {
    expect(eventOfPacket('2/chat,["message:new",{"msg":"hi"}]')).toEqual({ namespace: '/chat', event: 'message:new' });
    expect(eventOfPacket('2["hello"]')).toEqual({ namespace: '/', event: 'hello' });
    expect(eventOfPacket('2/chat,12["typing",{}]')).toEqual({ namespace: '/chat', event: 'typing' });
    expect(eventOfPacket('51-/chat,["upload",{"_placeholder":true,"num":0}]')).toEqual({ namespace: '/chat', event: 'upload' });
    for (const other of ['0/chat,{"sid":"x"}', '3/chat,5[{"ok":true}]', '4/chat,{"message":"unauthorized"}', '', '2/chat,[1]'])
      expect(eventOfPacket(other)).toBeNull();
  });
});
