// SMS_PROVIDER=http (README, "Configuration"): every SMS is POSTed as JSON to the gateway at
// SMS_HTTP_URL with the bearer SMS_HTTP_TOKEN. A local stand-in gateway plays the provider: the
// real server sends the register code there (and writes no outbox), the code it carried verifies
// the number; a gateway that fails or cannot be reached fails the send with 500
// sms.error.delivery_failed and an error that names neither the code nor the message; and the
// configuration refuses `http` without its URL or token, or with plain http in production.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { HttpSmsProvider } from '../../src/sms/provider.js';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, expectErrorEnvelope, uniquePhone, uniqueUsername } from '../helpers/api.js';
import { AUTH } from './fixtures.js';

const TOKEN = 'gateway-token-0123456789';

interface Received {
  authorization: string | undefined;
  contentType: string | undefined;
  body: { to?: unknown; message?: unknown; purpose?: unknown };
}

/** A stand-in SMS gateway: records what it receives; answers `nextStatus` (200 by default). */
class GatewayStandIn {
  readonly received: Received[] = [];
  nextStatus = 200;
  url = '';
  private server: http.Server | null = null;

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        this.received.push({ authorization: req.headers.authorization, contentType: req.headers['content-type'], body: JSON.parse(text) });
        const status = this.nextStatus;
        this.nextStatus = 200;
        // A failing gateway that echoes the message back: the error raised must not carry it.
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(status === 200 ? { id: `msg-${this.received.length}` } : { error: 'rejected', echo: text }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/messages`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  to(phone: string): Received[] {
    return this.received.filter((r) => r.body.to === phone);
  }
}

const gateway = new GatewayStandIn();
beforeAll(() => gateway.start());
afterAll(() => gateway.stop());
const server = useTestServer(() => ({ SMS_PROVIDER: 'http', SMS_HTTP_URL: gateway.url, SMS_HTTP_TOKEN: TOKEN }));
const api = () => new ApiClient(server.url);

const newUser = () => ({ username: uniqueUsername(), password: 'password-123', phone_number: uniquePhone(), given_name: 'Lan', family_name: 'Pham' });

describe('SMS_PROVIDER=http', () => {
  it('sends the register code to the gateway (bearer token, JSON), writes no outbox, and the code verifies the number', async () => {
    const user = newUser();
    expect((await api().post(`${AUTH}/register`, user)).status).toBe(201);
    const [sent] = gateway.to(user.phone_number);
    expect(sent).toBeDefined();
    expect(sent.authorization).toBe(`Bearer ${TOKEN}`);
    expect(sent.contentType).toMatch(/^application\/json/);
    expect(sent.body.purpose).toBe('register');
    const code = /\b(\d{6})\b/.exec(String(sent.body.message))?.[1];
    expect(code).toMatch(/^\d{6}$/);
    expect(fs.existsSync(path.join(server.current.dataDir, 'sms-outbox.jsonl'))).toBe(false);
    expect((await api().post(`${AUTH}/verify-otp`, { phone_number: user.phone_number, otp: code })).status).toBe(200);
  });

  it('answers 500 sms.error.delivery_failed when the gateway refuses the message', async () => {
    const user = newUser();
    expect((await api().post(`${AUTH}/register`, user)).status).toBe(201);
    gateway.nextStatus = 503;
    expectErrorEnvelope(await api().post(`${AUTH}/send-otp`, { phone_number: user.phone_number }), 500, 'sms.error.delivery_failed');
    expect(gateway.to(user.phone_number)).toHaveLength(2);
  });
});

describe('HttpSmsProvider', () => {
  const message = { to: '+84901111111', purpose: 'register' as const, code: '424242', body: 'Your code is 424242' };

  it('fails with an error naming the status only when the gateway answers non-2xx (the code is not in it)', async () => {
    gateway.nextStatus = 401;
    const err = await new HttpSmsProvider(gateway.url, TOKEN).send(message).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toBe('SMS gateway answered 401');
    expect(JSON.stringify(err)).not.toContain('424242');
  });

  it('fails with an error naming neither the code nor the URL when the gateway cannot be reached', async () => {
    const closed = new GatewayStandIn();
    await closed.start();
    await closed.stop();
    const err = await new HttpSmsProvider(closed.url, TOKEN).send(message).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toBe('SMS gateway could not be reached');
    expect(String(err)).not.toContain('424242');
    expect(closed.received).toEqual([]);
  });
});

describe('SMS_PROVIDER configuration', () => {
  const base = { DATA_DIR: '/tmp/unused' };
  it('refuses http without SMS_HTTP_URL or SMS_HTTP_TOKEN, a URL that is not http(s), and plain http in production', () => {
    expect(() => loadConfig({ ...base, SMS_PROVIDER: 'http', SMS_HTTP_TOKEN: TOKEN })).toThrow(
      new ConfigError('invalid environment variable SMS_HTTP_URL: required with SMS_PROVIDER=http'),
    );
    expect(() => loadConfig({ ...base, SMS_PROVIDER: 'http', SMS_HTTP_URL: 'https://sms.example.vn/send' })).toThrow(/SMS_HTTP_TOKEN: required/);
    expect(() => loadConfig({ ...base, SMS_PROVIDER: 'http', SMS_HTTP_URL: 'ftp://sms.example.vn/send', SMS_HTTP_TOKEN: TOKEN })).toThrow(/SMS_HTTP_URL/);
    expect(() =>
      loadConfig({ ...base, NODE_ENV: 'production', SMS_PROVIDER: 'http', SMS_HTTP_URL: 'http://sms.example.vn/send', SMS_HTTP_TOKEN: TOKEN }),
    ).toThrow(/must be https:\/\/ in production/);
    expect(() => loadConfig({ ...base, SMS_PROVIDER: 'carrier-pigeon' })).toThrow(/SMS_PROVIDER/);
  });

  it('keeps outbox as the default and accepts https in production', () => {
    expect(loadConfig(base).SMS_PROVIDER).toBe('outbox');
    expect(
      loadConfig({ ...base, NODE_ENV: 'production', SMS_PROVIDER: 'http', SMS_HTTP_URL: 'https://sms.example.vn/send', SMS_HTTP_TOKEN: TOKEN }).SMS_PROVIDER,
    ).toBe('http');
  });

  it('is frozen: the configuration cannot change under the services built from it', () => {
    const config = loadConfig(base);
    expect(Object.isFrozen(config)).toBe(true);
    expect(() => Reflect.set(config, 'publicBaseUrl', 'http://elsewhere')).not.toThrow();
    expect(config.publicBaseUrl).toBe('http://localhost:3000');
  });
});
