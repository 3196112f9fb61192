// A local stand-in for a Web Push service (RFC 8030) and the browser behind a subscription: it
// owns each subscription's P-256 key pair and auth secret, serves https (a self-signed
// certificate the server trusts through WEB_PUSH_CA_FILE), checks the VAPID Authorization header
// (RFC 8292) against the service's public key, and decrypts the aes128gcm payload (RFC 8291)
// with http_ece. Each subscription answers as told: 201, or 410 (gone), or 500 once then 201.
import { createECDH, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

const ece = createRequire(import.meta.url)('http_ece') as {
  decrypt(buffer: Buffer, params: { version: string; privateKey: ECDH; authSecret: string }): Buffer;
};

/** A host name the stand-in's certificate also holds (tests map it to 127.0.0.1 through the resolver seam). */
export const PUSH_STAND_IN_NAME = 'push.stand-in.test';

export type Behaviour = 'accept' | 'gone' | 'fail-once';

export interface ReceivedPush {
  subscription: string;
  payload: any;
  ttl: string | undefined;
  encoding: string | undefined;
  /** The VAPID JWT verified with the service's public key, for the endpoint's origin, not expired. */
  vapidValid: boolean;
  vapidClaims: any;
}

interface StandInSubscription {
  ecdh: ECDH;
  auth: string;
  behaviour: Behaviour;
  failed: boolean;
}

export class PushStandIn {
  readonly received: ReceivedPush[] = [];
  readonly refused: { subscription: string; status: number }[] = [];
  readonly caFile: string;
  private readonly subscriptions = new Map<string, StandInSubscription>();
  private readonly server: https.Server;
  private readonly dir: string;
  /** The service's VAPID public key (base64url), once the test has read it. */
  vapidPublicKey = '';

  private constructor(dir: string, key: string, cert: string) {
    this.dir = dir;
    this.caFile = path.join(dir, 'cert.pem');
    this.server = https.createServer({ key, cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const id = (req.url ?? '').replace(/^\/push\//, '');
        const sub = this.subscriptions.get(id);
        if (!sub) return void res.writeHead(404).end();
        if (sub.behaviour === 'gone' || (sub.behaviour === 'fail-once' && !sub.failed)) {
          sub.failed = true;
          const status = sub.behaviour === 'gone' ? 410 : 500;
          this.refused.push({ subscription: id, status });
          return void res.writeHead(status).end();
        }
        const body = Buffer.concat(chunks);
        const plain = ece.decrypt(body, { version: 'aes128gcm', privateKey: sub.ecdh, authSecret: sub.auth });
        const { valid, claims } = this.checkVapid(String(req.headers.authorization ?? ''));
        this.received.push({
          subscription: id,
          payload: JSON.parse(plain.toString('utf8')),
          ttl: req.headers.ttl as string | undefined,
          encoding: req.headers['content-encoding'],
          vapidValid: valid,
          vapidClaims: claims,
        });
        res.writeHead(201).end();
      });
    });
  }

  static async start(): Promise<PushStandIn> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'push-stand-in-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        `subjectAltName=IP:127.0.0.1,DNS:${PUSH_STAND_IN_NAME}`,
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const standIn = new PushStandIn(dir, fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'), fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8'));
    await new Promise<void>((resolve) => standIn.server.listen(0, '127.0.0.1', resolve));
    return standIn;
  }

  get origin(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A new browser subscription: what PushSubscription.toJSON() would give. */
  subscribe(behaviour: Behaviour = 'accept', origin = this.origin): { id: string; body: { endpoint: string; keys: { p256dh: string; auth: string } } } {
    const id = randomBytes(8).toString('hex');
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16).toString('base64url');
    this.subscriptions.set(id, { ecdh, auth, behaviour, failed: false });
    return { id, body: { endpoint: `${origin}/push/${id}`, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth } } };
  }

  for(id: string): ReceivedPush[] {
    return this.received.filter((r) => r.subscription === id);
  }

  /** `vapid t=<jwt>, k=<public key>`: the key must be the service's, the ES256 signature valid. */
  private checkVapid(header: string): { valid: boolean; claims: any } {
    const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header);
    if (!match || match[2] !== this.vapidPublicKey) return { valid: false, claims: null };
    const [head, body, signature] = match[1].split('.');
    const raw = Buffer.from(match[2], 'base64url');
    const key = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33, 65).toString('base64url') },
      format: 'jwk',
    });
    const signed = verify('sha256', Buffer.from(`${head}.${body}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    const valid = signed && claims.aud === this.origin && claims.exp * 1000 > Date.now() && /^(mailto:|https:)/.test(claims.sub);
    return { valid, claims };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
