// The HTTP facade as a client meets it: body limits, content types, malformed input, unknown
// paths, CORS, security headers and request ids (CONTRACT §10, SPEC §7).
import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { useTestServer } from '../helpers/fixture.js';
import fs from 'node:fs';
import { ApiClient, expectErrorEnvelope, registerAndLogin } from '../helpers/api.js';

const booted = useTestServer();

let server: TestServer;
let api: ApiClient;
beforeAll(async () => {
  server = booted.current;
  api = new ApiClient(server.url);
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

function parseRaw(text: string): RawResponse {
  const [head, ...rest] = text.split('\r\n\r\n');
  const [statusLine, ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  const bodyText = rest.join('\r\n\r\n');
  let body: unknown = bodyText;
  try {
    body = JSON.parse(bodyText);
  } catch {
    /* not JSON (or chunked) */
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/**
 * Sends a request over a raw socket: `head`, then `body` (a part of what the head announces), then
 * waits for the answer without sending more. A server that refuses early answers although most
 * of the announced body never came; a plain HTTP client cannot show that (it fails when the
 * server closes while it is still sending).
 */
function rawRequest(head: string, body: Buffer): Promise<RawResponse> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    let answered = false;
    const finish = () => {
      if (answered) return;
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length:\s*(\d+)/i.exec(received.slice(0, end))?.[1] ?? NaN);
      if (Number.isFinite(length) && received.length - end - 4 < length) return;
      answered = true;
      socket.destroy();
      resolve(parseRaw(received));
    };
    socket.on('data', (d) => {
      received += d.toString('utf8');
      finish();
    });
    // The server may close while we still write; what it answered before counts.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (answered) return;
      if (received) resolve(parseRaw(received));
      else reject(new Error('connection closed without a response'));
    });
    socket.write(head);
    socket.write(body);
  });
}

const host = () => new URL(server.url).host;

describe('request bodies', () => {
  it('refuses a 20 MB JSON body by its Content-Length (413) before reading it', async () => {
    const size = 20 * 1024 * 1024;
    const res = await rawRequest(
      `POST /auth/api/v1/login HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
      Buffer.alloc(64 * 1024, 'a'),
    );
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, error_code: 'request.error.body_too_large' });
    expect(res.body.details.field).toBe('body');
  });

  it('refuses a chunked body once it grows over the limit (413)', async () => {
    const limit = server.service.config.MAX_JSON_BODY_BYTES;
    // More than the limit in chunks, and no final chunk: only a server that counts refuses it.
    const piece = Buffer.alloc(32 * 1024, 'a');
    const chunks: Buffer[] = [];
    for (let sent = 0; sent <= limit * 1.5; sent += piece.length) {
      chunks.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
    }
    const res = await rawRequest(
      `POST /auth/api/v1/login HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      Buffer.concat(chunks),
    );
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, error_code: 'request.error.body_too_large' });
  });

  it('accepts a body just under the limit (the limit is not off by much)', async () => {
    const limit = server.service.config.MAX_JSON_BODY_BYTES;
    const padding = 'x'.repeat(limit - 200);
    const res = await api.post('/auth/api/v1/login', { phone_number: '+84901234567', password: padding });
    // Read and validated (password too long), not refused as too large.
    expectErrorEnvelope(res, 400, 'validation.error');
  });

  it('answers 400 to malformed JSON', async () => {
    const res = await api.request('POST', '/auth/api/v1/login', {
      rawBody: '{"phone_number": "+84901234567", "password": ',
      headers: { 'content-type': 'application/json' },
    });
    const err = expectErrorEnvelope(res, 400, 'request.error.malformed_json');
    expect(err.details).toEqual({ field: 'body', constraint: 'valid JSON' });
  });

  it('answers 415 to a body that is not JSON', async () => {
    const res = await api.request('POST', '/auth/api/v1/login', {
      rawBody: 'phone_number=%2B84901234567&password=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const err = expectErrorEnvelope(res, 415, 'request.error.unsupported_media_type');
    expect(err.details?.field).toBe('content-type');
  });

  it('answers 400 with the field at fault to a JSON body of the wrong shape', async () => {
    const res = await api.post('/auth/api/v1/login', { phone_number: 12345, password: 'x' });
    const err = expectErrorEnvelope(res, 400, 'validation.error');
    expect(err.details?.field).toBe('phone_number');
  });
});

describe('aborted requests', () => {
  /** Sends the head and part of the announced body, then drops the connection. */
  async function abortMidBody(head: string, part: Buffer): Promise<void> {
    const { hostname, port } = new URL(server.url);
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(port), hostname, () => {
        socket.write(head);
        socket.write(part, () => setTimeout(() => socket.destroy(), 200));
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve());
    });
  }

  async function settled(): Promise<number> {
    // The server notices the drop asynchronously: poll (bounded) until nothing is in flight.
    for (let i = 0; i < 100 && server.service.http.inFlight() > 0; i++) await new Promise((r) => setTimeout(r, 50));
    return server.service.http.inFlight();
  }

  it('does not keep a JSON request whose client left mid-body in flight', async () => {
    await abortMidBody(
      `POST /auth/api/v1/login HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`,
      Buffer.from('{"phone_number": "+849'),
    );
    expect(await settled()).toBe(0);
  });

  it('removes the partial file of an upload whose client left mid-body', async () => {
    const user = await registerAndLogin(server);
    const boundary = 'xxBOUNDARYxx';
    const partHead = `--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\nimage\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`;
    await abortMidBody(
      `POST /file-processing/api/v1/upload HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${user.token}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 5000000\r\n\r\n`,
      Buffer.concat([Buffer.from(partHead), Buffer.alloc(256 * 1024, 7)]),
    );
    expect(await settled()).toBe(0);
    const tmpDir = server.service.config.tmpDir;
    // Removal is asynchronous too.
    for (let i = 0; i < 40 && fs.existsSync(tmpDir) && fs.readdirSync(tmpDir).length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(fs.existsSync(tmpDir) ? fs.readdirSync(tmpDir) : []).toEqual([]);
  });
});

describe('routing', () => {
  it('answers unknown paths with the 404 envelope', async () => {
    const res = await api.get('/no/such/path');
    const err = expectErrorEnvelope(res, 404, 'route.error.not_found');
    expect(err.message).toContain('/no/such/path');
    expectErrorEnvelope(await api.get('/auth/api/v2/login'), 404);
  });

  it('answers a known path with the wrong method with 404', async () => {
    expectErrorEnvelope(await api.request('PUT', '/auth/api/v1/login', { body: {} }), 404, 'route.error');
    expectErrorEnvelope(await api.delete('/authorization/api/v1/permissions'), 404, 'route.error');
  });

  it('answers 400 to a malformed percent-encoding in a path parameter', async () => {
    const withParam = server.service.http.router.routes().find((r) => r.path.includes('/:'));
    expect(withParam, 'some route has a path parameter').toBeDefined();
    const path = withParam!.path.replace(/:\w+/g, '%E0%A4%A');
    const res = await api.request(withParam!.method, path, withParam!.method === 'GET' || withParam!.method === 'DELETE' ? {} : { body: {} });
    expectErrorEnvelope(res, 400, 'request.error.invalid_path');
  });
});

describe('headers', () => {
  it('answers a CORS preflight with 204 and the allowed methods and headers', async () => {
    const res = await api.request('OPTIONS', '/authorization/api/v1/roles', {
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-methods')).toContain('DELETE');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
  });

  it('sends CORS and security headers on normal and error responses', async () => {
    for (const res of [await api.get('/authorization/api/v1/permissions'), await api.get('/no/such/path')]) {
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });

  it('sends the same request id, CORS and security headers on the raw routes (media, OpenAPI)', async () => {
    const media = await api.get('/media/no/such/file.mp4', { headers: { 'x-request-id': 'media-trace-1' } });
    const openapi = await api.get('/api/v1/openapi.json', { headers: { 'x-request-id': 'doc-trace-1' } });
    expect(media.status).toBe(404);
    expect(media.body.error_code).toBe('media.error.not_found');
    expect(openapi.status).toBe(200);
    expect(media.headers.get('x-request-id')).toBe('media-trace-1');
    expect(openapi.headers.get('x-request-id')).toBe('doc-trace-1');
    for (const res of [media, openapi]) {
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
  });

  it('echoes a well-formed X-Request-Id and generates one otherwise', async () => {
    const echoed = await api.get('/healthz', { headers: { 'x-request-id': 'trace-abc_123' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-abc_123');
    const generated = await api.get('/healthz');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const other = await api.get('/healthz');
    expect(other.headers.get('x-request-id')).not.toBe(generated.headers.get('x-request-id'));
    // Anything that could inject into logs or headers is replaced, not echoed.
    const hostile = await api.get('/healthz', { headers: { 'x-request-id': 'a b<script>' } });
    expect(hostile.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends X-RateLimit-* headers on a rate-limited route', async () => {
    const res = await api.get('/authorization/api/v1/permissions');
    expect(res.status).toBe(200);
    const limit = Number(res.headers.get('x-ratelimit-limit'));
    const remaining = Number(res.headers.get('x-ratelimit-remaining'));
    const reset = Number(res.headers.get('x-ratelimit-reset'));
    expect(limit).toBeGreaterThan(0);
    expect(remaining).toBeGreaterThanOrEqual(0);
    expect(remaining).toBeLessThan(limit);
    expect(Number.isInteger(reset)).toBe(true);
    expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 61);
  });
});

describe('health', () => {
  it('answers /healthz and /readyz with {status: ok}', async () => {
    const live = await api.get('/healthz');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    const ready = await api.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', transport: 'uws-native', media_storage: expect.stringMatching(/^local:/) });
    // Probes are not counted against rate limits.
    expect(live.headers.get('x-ratelimit-limit')).toBeNull();
  });
});
