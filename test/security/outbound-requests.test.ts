// Outbound requests (CONTRACT §19, issue 24 finding 2): a Web Push endpoint that names a
// loopback, private, link-local, metadata or otherwise non-public address — in any notation, with
// credentials, or through a name that resolves there — is refused at subscribe time (400 on
// `endpoint`) and never contacted at send time, also when its name resolved elsewhere (or not at
// all) when it was given. A listener on 127.0.0.1 stands for the internal service and must
// receive nothing. The node resolves names through a seam the test controls; an allowed host is
// still reached at the address that was checked (the connection never does its own lookup).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { bootServer, type TestServer } from '../helpers/server.js';
import { expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { PushStandIn, PUSH_STAND_IN_NAME } from '../notifications/push-stand-in.js';
import type { ResolvedAddress } from '../../src/outbound/gate.js';
import { systemResolver } from '../../src/outbound/gate.js';

const SUBSCRIPTIONS = '/sns/api/v1/push/subscriptions';

/** Names the test answers for (an array: the addresses; null: "does not resolve"); others go to the system resolver. */
const names = new Map<string, ResolvedAddress[] | null>();
const resolveHost = async (hostname: string): Promise<ResolvedAddress[]> => {
  if (!names.has(hostname)) return systemResolver(hostname);
  const answer = names.get(hostname);
  if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return answer;
};
const LOOPBACK = [{ address: '127.0.0.1', family: 4 }];
const PUBLIC = [{ address: '93.184.215.14', family: 4 }];

let server: TestServer;
let standIn: PushStandIn;
let listener: net.Server;
let port: number;
/** Every connection the internal listener accepted. */
const contacts: string[] = [];

beforeAll(async () => {
  listener = net.createServer((socket) => {
    contacts.push(`${socket.remoteAddress}:${socket.remotePort}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as net.AddressInfo).port;
  standIn = await PushStandIn.start();
  names.set(PUSH_STAND_IN_NAME, LOOPBACK);
  names.set('internal.example.test', LOOPBACK);
  names.set('mixed.example.test', [...PUBLIC, ...LOOPBACK]);
  server = await bootServer({ WEB_PUSH_CA_FILE: standIn.caFile, OUTBOUND_ALLOWED_HOSTS: PUSH_STAND_IN_NAME }, { resolveHost });
  const someone = await registerAndLogin(server);
  standIn.vapidPublicKey = (await someone.api.get('/sns/api/v1/push/vapid-public-key')).body.data.publicKey;
});

afterAll(async () => {
  await server?.close();
  await standIn?.close();
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});

const keys = () => standIn.subscribe().body.keys;
const follow = (from: TestUser, to: TestUser) => from.api.post(`/auth/api/v1/users/${to.userId}/follow`, undefined, { headers: { 'x-user-id': from.userId } });

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const deliveriesOf = (userId: string) =>
  server.service.app.database.rows<{ outcome: string | null }>(sql`
    select d.outcome from push_deliveries d
    join notifications n on n.id = d.notification_id where n.user_id = ${userId}`);
const subscriptionCount = async (userId: string) =>
  (await server.service.app.database.rows<{ n: number }>(sql`select count(*)::int as n from push_subscriptions where user_id = ${userId}`))[0].n;

describe('a push endpoint at an internal address', () => {
  it('should be refused at subscribe time, 400 on endpoint, in every notation, and never contacted', async () => {
    const user = await registerAndLogin(server);
    const endpoints = [
      `https://127.0.0.1:${port}/internal/admin?x=1`,
      `https://localhost:${port}/internal/admin`,
      `https://[::1]:${port}/internal/admin`,
      'https://169.254.169.254/latest/meta-data/',
      'https://10.0.0.1/push',
      `https://2130706433:${port}/internal/admin`,
      `https://0x7f.1:${port}/internal/admin`,
      `https://0177.0.0.1:${port}/internal/admin`,
      `https://127.1:${port}/internal/admin`,
      `https://user:pw@127.0.0.1:${port}/internal/admin`,
      `https://user:pw@${PUSH_STAND_IN_NAME}:${port}/push`,
      `https://internal.example.test:${port}/internal/admin`,
      `https://mixed.example.test:${port}/push`,
      `https://[::ffff:127.0.0.1]:${port}/internal/admin`,
      `https://[::ffff:7f00:1]:${port}/internal/admin`,
      `https://[64:ff9b::7f00:1]:${port}/internal/admin`,
      'https://100.64.0.1/push',
      'https://192.168.1.1/push',
      'https://[fd00:ec2::254]/latest/meta-data/',
      'https://[fe80::1]/push',
      'https://224.0.0.1/push',
      `https://0.0.0.0:${port}/internal/admin`,
    ];
    for (const endpoint of endpoints) {
      const res = await user.api.post(SUBSCRIPTIONS, { endpoint, keys: keys() });
      const envelope = expectErrorEnvelope(res, 400);
      expect(envelope.details?.field, endpoint).toBe('endpoint');
    }
    expect(await subscriptionCount(user.userId)).toBe(0);
    expect(contacts).toEqual([]);
  });

  it('should accept a host that does not resolve yet, and never contact it once it resolves to an internal address', async () => {
    names.set('later.example.test', null);
    const user = await registerAndLogin(server);
    const fan = await registerAndLogin(server);
    const res = await user.api.post(SUBSCRIPTIONS, { endpoint: `https://later.example.test:${port}/internal/admin`, keys: keys() });
    expect(res.status, res.text).toBe(201);
    names.set('later.example.test', LOOPBACK);
    expect((await follow(fan, user)).status).toBe(200);
    // Refused at send time: the subscription is dropped (with its queued push) and nothing connects.
    await until(() => subscriptionCount(user.userId), (n) => n === 0);
    expect(await deliveriesOf(user.userId)).toEqual([]);
    expect(contacts).toEqual([]);
  });

  it('should check again at send time: a name that pointed to a public address and now points inside is not contacted', async () => {
    names.set('rebind.example.test', PUBLIC);
    const user = await registerAndLogin(server);
    const fan = await registerAndLogin(server);
    const res = await user.api.post(SUBSCRIPTIONS, { endpoint: `https://rebind.example.test:${port}/internal/admin`, keys: keys() });
    expect(res.status, res.text).toBe(201);
    names.set('rebind.example.test', LOOPBACK);
    expect((await follow(fan, user)).status).toBe(200);
    await until(() => subscriptionCount(user.userId), (n) => n === 0);
    expect(contacts).toEqual([]);
  });
});

describe('an allowed push host (OUTBOUND_ALLOWED_HOSTS)', () => {
  it('should be reached at the address the gate resolved (the system resolver does not know the name)', async () => {
    const user = await registerAndLogin(server);
    const fan = await registerAndLogin(server);
    const origin = `https://${PUSH_STAND_IN_NAME}:${new URL(standIn.origin).port}`;
    const sub = standIn.subscribe('accept', origin);
    const res = await user.api.post(SUBSCRIPTIONS, sub.body);
    expect(res.status, res.text).toBe(201);
    expect((await follow(fan, user)).status).toBe(200);
    await until(async () => standIn.for(sub.id), (r) => r.length === 1);
    expect(standIn.for(sub.id)[0].payload.type).toBe('follow');
    expect(contacts).toEqual([]);
  });
});
