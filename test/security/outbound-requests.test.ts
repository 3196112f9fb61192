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
    await until(
      () => subscriptionCount(user.userId),
      (n) => n === 0,
    );
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
    await until(
      () => subscriptionCount(user.userId),
      (n) => n === 0,
    );
    expect(contacts).toEqual([]);
  });
});

// CONTRACT §19 (issue 29 F3): an IPv6 address that embeds an IPv4 one is judged by that IPv4
// address, and reserved ranges (v4 and v6) are refused like private ones.
describe('an address that embeds IPv4, or lies in a reserved range', () => {
  const refused = [
    'https://[::127.0.0.1]:PORT/internal/admin',
    'https://[::7f00:1]:8443/',
    'https://[::10.0.0.1]/push',
    'https://[::169.254.169.254]/latest/meta-data/',
    'https://[::]/push',
    'https://[::ffff:0:7f00:1]/push', // IPv4-translated
    'https://[64:ff9b::10.0.0.1]/push', // NAT64
    'https://[64:ff9b:1::5db8:d70e]/push', // local-use NAT64: never globally reachable
    'https://[2002:7f00:1::1]/push', // 6to4 of 127.0.0.1
    'https://[2002:a9fe:a9fe::]/latest/meta-data/', // 6to4 of 169.254.169.254
    'https://[2001:0:a00:1::a247:28f1]/push', // Teredo, server 10.0.0.1
    'https://[2001:0:5db8:d70e::80ff:fffe]/push', // Teredo, client 127.0.0.1 (inverted)
    'https://192.0.2.1/push',
    'https://192.0.0.8/push',
    'https://198.18.0.1/push',
    'https://203.0.113.5/push',
    'https://240.0.0.1/push',
    'https://255.255.255.255/push',
    'https://[2001:db8::1]/push',
    'https://[3fff::1]/push',
    'https://[100::1]/push',
    'https://[2001:2::1]/push',
    'https://[fec0::1]/push',
    'https://[5f00::1]/push',
    'https://[4000::1]/push', // outside 2000::/3, the only global unicast space
    'https://compat.example.test:PORT/internal/admin', // a name that resolves to ::7f00:1
  ];
  const accepted = [
    'https://[::93.184.215.14]/push',
    'https://[::ffff:93.184.215.14]/push',
    'https://[64:ff9b::93.184.215.14]/push',
    'https://[2002:5db8:d70e::1]/push',
    'https://[2001:0:5db8:d70e::a247:28f1]/push',
    'https://[2606:4700::1111]/push',
  ];

  // PORT: the internal listener's, known once it listens.
  it.each(refused)('should refuse %s at subscribe time with 400 on endpoint', async (template) => {
    names.set('compat.example.test', [{ address: '::7f00:1', family: 6 }]);
    const endpoint = template.replace('PORT', String(port));
    const user = await registerAndLogin(server);
    const envelope = expectErrorEnvelope(await user.api.post(SUBSCRIPTIONS, { endpoint, keys: keys() }), 400);
    expect(envelope.details?.field, endpoint).toBe('endpoint');
    expect(await subscriptionCount(user.userId)).toBe(0);
    expect(contacts).toEqual([]);
  });

  it.each(accepted)('should accept %s, which carries (or is) a public address', async (endpoint) => {
    const user = await registerAndLogin(server);
    const res = await user.api.post(SUBSCRIPTIONS, { endpoint, keys: keys() });
    expect(res.status, res.text).toBe(201);
    expect(await subscriptionCount(user.userId)).toBe(1);
  });

  it('should refuse at send time a name that resolved to a public address and now resolves to ::7f00:1', async () => {
    names.set('compat-later.example.test', PUBLIC);
    const user = await registerAndLogin(server);
    const fan = await registerAndLogin(server);
    const res = await user.api.post(SUBSCRIPTIONS, { endpoint: `https://compat-later.example.test:${port}/internal/admin`, keys: keys() });
    expect(res.status, res.text).toBe(201);
    names.set('compat-later.example.test', [{ address: '::7f00:1', family: 6 }]);
    expect((await follow(fan, user)).status).toBe(200);
    // The gate refuses it (the subscription is dropped) instead of connecting to ::7f00:1.
    await until(
      () => subscriptionCount(user.userId),
      (n) => n === 0,
    );
    expect(await deliveriesOf(user.userId)).toEqual([]);
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
    await until(
      async () => standIn.for(sub.id),
      (r) => r.length === 1,
    );
    expect(standIn.for(sub.id)[0].payload.type).toBe('follow');
    expect(contacts).toEqual([]);
  });
});
