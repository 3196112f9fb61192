// Hostile HTTP input (CONTRACT §19): multipart forms cut off mid-file, missing or repeated
// boundaries, clients that leave mid-body, and bodies over the size limit. Each must be answered
// with a 4xx envelope (or, for a client that left, nothing), leave no temporary file behind, and
// leave the node serving. Raw sockets send what fetch would refuse to.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, registerAndLogin, type TestUser } from '../helpers/api.js';

const UPLOAD = '/file-processing/api/v1/upload';
const AVATAR = '/auth/api/v1/user/avatar';
const BOUNDARY = 'hostileBoundary1234';

interface RawResponse {
  status: number;
  body: any;
}

/** Sends `head` + `body` on a fresh socket and reads the whole answer (the request says close). */
function rawRequest(port: number, head: string, body: Buffer | string, options: { endAfterWrite?: boolean } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const payload = text.slice(text.indexOf('\r\n\r\n') + 4);
      let parsed: unknown = payload;
      try {
        parsed = JSON.parse(payload);
      } catch {
        /* not JSON */
      }
      resolve({ status, body: parsed });
    });
    socket.write(head);
    socket.write(body);
    if (options.endAfterWrite) socket.end();
  });
}

function requestHead(method: string, urlPath: string, token: string, headers: Record<string, string>): string {
  const lines = [`${method} ${urlPath} HTTP/1.1`, 'Host: 127.0.0.1', `Authorization: Bearer ${token}`, 'Connection: close'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return lines.join('\r\n') + '\r\n\r\n';
}

/** A multipart body with one file part whose content never reaches the closing boundary. */
function formCutMidFile(field: string): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
    Buffer.alloc(64 * 1024, 0xff),
  ]);
}

const tmpFiles = (server: TestServer) => {
  const dir = path.join(server.dataDir, 'tmp');
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.startsWith('upload-')) : [];
};

async function waitForNoTmpFiles(server: TestServer): Promise<string[]> {
  for (let i = 0; i < 50 && tmpFiles(server).length; i++) await new Promise((r) => setTimeout(r, 100));
  return tmpFiles(server);
}

function expectEnvelope(res: RawResponse, status: number, code?: string) {
  expect(res.status).toBe(status);
  expect(res.body.success).toBe(false);
  expect(typeof res.body.message).toBe('string');
  expect(typeof res.body.timestamp).toBe('string');
  if (code) expect(res.body.error_code).toBe(code);
}

describe('hostile HTTP input', () => {
  const booted = useTestServer();
  let server: TestServer;
  let port: number;
  let user: TestUser;

  beforeAll(async () => {
    server = booted.current;
    port = Number(new URL(server.url).port);
    user = await registerAndLogin(server);
  });

  async function expectNodeServing() {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    const me = await new ApiClient(server.url, user.token).get('/auth/api/v1/user/me');
    expect(me.status).toBe(200);
  }

  describe('should fail with a 4xx and survive', () => {
    for (const [route, method, field] of [
      [UPLOAD, 'POST', 'file'],
      [AVATAR, 'PUT', 'avatar'],
    ] as const) {
      it(`${method} ${route}: a form that ends inside a file`, async () => {
        const body = formCutMidFile(field);
        const res = await rawRequest(
          port,
          requestHead(method, route, user.token, { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': String(body.length) }),
          body,
        );
        expectEnvelope(res, 400, 'request.error.invalid_multipart');
        expect(await waitForNoTmpFiles(server)).toEqual([]);
        await expectNodeServing();
      });

      it(`${method} ${route}: a chunked form that ends inside a file`, async () => {
        const part = formCutMidFile(field);
        const chunked = Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n0\r\n\r\n')]);
        const res = await rawRequest(
          port,
          requestHead(method, route, user.token, { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Transfer-Encoding': 'chunked' }),
          chunked,
        );
        expectEnvelope(res, 400, 'request.error.invalid_multipart');
        expect(await waitForNoTmpFiles(server)).toEqual([]);
        await expectNodeServing();
      });
    }

    it('a form cut off inside a file part of a field the route does not take', async () => {
      const body = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="other"; filename="x.png"\r\n\r\nabc`);
      const res = await rawRequest(
        port,
        requestHead('POST', UPLOAD, user.token, { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': String(body.length) }),
        body,
      );
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(await waitForNoTmpFiles(server)).toEqual([]);
      await expectNodeServing();
    });

    it('a NUL character in a JSON body, a query value or a path parameter (PostgreSQL cannot store it)', async () => {
      const api = new ApiClient(server.url, user.token);
      const body = await api.request('PUT', '/auth/api/v1/user/me', {
        rawBody: '{"family_name":"b\\u00009"}',
        headers: { 'content-type': 'application/json' },
      });
      expect(body.status).toBe(400);
      expect(body.body.error_code).toBe('validation.error.invalid_body');
      expect(body.body.details.field).toBe('family_name');
      const query = await api.get('/content/api/v1/all?search=x%00y');
      expect(query.status).toBe(400);
      expect(query.body.error_code).toBe('validation.error.invalid_query');
      expect(query.body.details.field).toBe('search');
      const params = await api.get('/api/v1/content/abc%00def');
      expect(params.status).toBe(400);
      expect(params.body.error_code).toBe('validation.error.invalid_params');
      await expectNodeServing();
    });

    it('a JSON body nested thousands of levels deep', async () => {
      const deep = '['.repeat(5000) + ']'.repeat(5000);
      const res = await new ApiClient(server.url).request('POST', '/auth/api/v1/send-otp', {
        rawBody: `{"phone_number":${deep}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error_code).toBe('validation.error.invalid_body');
      await expectNodeServing();
    });

    it('a multipart content type without a boundary', async () => {
      const body = formCutMidFile('file');
      const res = await rawRequest(
        port,
        requestHead('POST', UPLOAD, user.token, { 'Content-Type': 'multipart/form-data', 'Content-Length': String(body.length) }),
        body,
      );
      expectEnvelope(res, 400, 'request.error.invalid_multipart');
      await expectNodeServing();
    });

    it.each([
      ['repeats the boundary with no part between', Buffer.from(`--${BOUNDARY}\r\n--${BOUNDARY}\r\n--${BOUNDARY}--\r\n`)],
      ['holds garbage and no boundary at all', Buffer.alloc(10_000, 0x41)],
    ])('a multipart body that %s', async (_case, body) => {
      const res = await rawRequest(
        port,
        requestHead('POST', UPLOAD, user.token, { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': String(body.length) }),
        body,
      );
      expectEnvelope(res, 400);
      await expectNodeServing();
    });

    it('a client that leaves mid-file leaves no temporary file', async () => {
      const body = formCutMidFile('file');
      const head = requestHead('POST', UPLOAD, user.token, {
        'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
        'Content-Length': String(body.length + 1_000_000),
      });
      await new Promise<void>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.write(head);
          socket.write(body, () => setTimeout(() => (socket.destroy(), resolve()), 200));
        });
        socket.on('error', () => resolve());
      });
      expect(await waitForNoTmpFiles(server)).toEqual([]);
      await expectNodeServing();
    });

    it('a 20 MB JSON body sent whole by fetch: the client reads the 413', async () => {
      const huge = JSON.stringify({ given_name: 'x'.repeat(20 * 1024 * 1024) });
      const res = await fetch(`${server.url}/auth/api/v1/user/me`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
        body: huge,
      });
      expect(res.status).toBe(413);
      const body = await res.json();
      expect(body.error_code).toBe('request.error.body_too_large');
      await expectNodeServing();
    });

    it('a request refused before its body was read leaves a keep-alive connection usable', async () => {
      const agent = new ApiClient(server.url);
      for (let round = 0; round < 3; round++) {
        const refused = await agent.request('POST', '/auth/api/v1/login', { rawBody: 'not json', headers: { 'content-type': 'text/plain' } });
        expect(refused.status).toBe(415);
        const notFound = await agent.request('PUT', '/auth/api/v1/no-such-route', { body: { a: 1 } });
        expect(notFound.status).toBe(404);
        const malformed = await agent.request('POST', '/auth/api/v1/login', { rawBody: '{"a":', headers: { 'content-type': 'application/json' } });
        expect(malformed.status).toBe(400);
        expect(malformed.body.error_code).toBe('request.error.malformed_json');
      }
    });

    it('a lone UTF-16 surrogate is stored as U+FFFD, in both storage modes', async () => {
      const api = new ApiClient(server.url, user.token);
      const res = await api.request('PUT', '/auth/api/v1/user/me', {
        rawBody: '{"family_name":"c\\udfe0\\ud55c"}',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(200);
      const me = await api.get('/auth/api/v1/user/me');
      expect(me.body.data.family_name).toBe('c\ufffd\ud55c');
    });

    it('a chunked JSON body that grows past the limit: the client reads the 413', async () => {
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 8 * 1024 * 1024) return controller.close();
          sent += chunk.length;
          controller.enqueue(chunk);
        },
      });
      const res = await fetch(`${server.url}/auth/api/v1/user/me`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      expect((await res.json()).error_code).toBe('request.error.body_too_large');
      await expectNodeServing();
    });
  });
});
