// Web Push (CONTRACT §17) against a local stand-in push service that decrypts each payload with
// the subscription's own keys and checks the VAPID signature: pushes reach users with no socket,
// not users with one, not users who turned push off; 410 removes a subscription; a failed send is
// retried with backoff; subscribing and unsubscribing validate their input.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll } from '../realtime/socket-client.js';
import { createContent } from '../sns/fixtures.js';
import { SNS, listen, nextNotification, setSettings, settle, waitForNotification } from './fixtures.js';
import { PushStandIn, type Behaviour } from './push-stand-in.js';

const SUBSCRIPTIONS = `${SNS}/push/subscriptions`;
let standIn: PushStandIn;
beforeAll(async () => {
  standIn = await PushStandIn.start();
});
const booted = useTestServer(() => ({ WEB_PUSH_CA_FILE: standIn.caFile, OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' }));
let server: TestServer;
beforeAll(async () => {
  server = booted.current;
  const someone = await registerAndLogin(server);
  standIn.vapidPublicKey = (await someone.api.get(`${SNS}/push/vapid-public-key`)).body.data.publicKey;
});
afterEach(() => closeAll());
afterAll(async () => {
  closeAll();
  await standIn.close();
});

const follow = (from: TestUser, to: TestUser) => from.api.post(`/auth/api/v1/users/${to.userId}/follow`, undefined, { headers: { 'x-user-id': from.userId } });

async function subscribed(user: TestUser, behaviour: Behaviour = 'accept') {
  const sub = standIn.subscribe(behaviour);
  const res = await user.api.post(SUBSCRIPTIONS, sub.body);
  expect(res.status, res.text).toBe(201);
  return sub;
}

async function until<T>(read: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const subscriptionCount = async (userId: string) =>
  (await server.service.app.database.rows<{ n: number }>(sql`select count(*)::int as n from push_subscriptions where user_id = ${userId}`))[0].n;

describe('the VAPID public key', () => {
  it('should be one uncompressed P-256 key, the same on every call', async () => {
    const user = await registerAndLogin(server);
    const res = await user.api.get(`${SNS}/push/vapid-public-key`);
    expect(res.status).toBe(200);
    const key = Buffer.from(res.body.data.publicKey, 'base64url');
    expect(key).toHaveLength(65);
    expect(key[0]).toBe(4);
    expect(res.body.data.publicKey).toBe(standIn.vapidPublicKey);
    expectErrorEnvelope(await new ApiClient(server.url).get(`${SNS}/push/vapid-public-key`), 401);
  });
});

describe('delivery', () => {
  it('should push to a user with no socket: encrypted for the subscription, signed with VAPID', async () => {
    const user = await registerAndLogin(server);
    const fan = await registerAndLogin(server);
    const sub = await subscribed(user);
    expect((await follow(fan, user)).status).toBe(200);
    const [push] = await until(
      () => standIn.for(sub.id),
      (r) => r.length > 0,
    );
    const stored = await waitForNotification(user, (n) => n.type === 'follow');
    expect(push.payload).toMatchObject({ id: stored.id, type: 'follow', subject: { type: 'user', id: fan.userId } });
    expect(push.encoding).toBe('aes128gcm');
    expect(Number(push.ttl)).toBeGreaterThan(0);
    expect(push.vapidValid).toBe(true);
    await settle();
    expect(standIn.for(sub.id)).toHaveLength(1);
  });

  it('should not push while the user has a socket on /notifications, and push again once it is gone', async () => {
    const user = await registerAndLogin(server);
    const fan = await registerAndLogin(server);
    const item = await createContent(server, user);
    const sub = await subscribed(user);
    const { socket } = await listen(server, user, 'websocket');
    const onSocket = nextNotification(socket, (n) => n.type === 'comment');
    expect((await fan.api.post(`${SNS}/comments`, { contentId: item, msg: 'Still available?' })).status).toBe(201);
    await onSocket;
    await settle(3_000);
    expect(standIn.for(sub.id)).toEqual([]);

    socket.close();
    await until(
      async () => (await server.service.realtime.io.of('/notifications').in(`user:${user.userId}`).fetchSockets()).length,
      (n) => n === 0,
    );
    expect((await fan.api.post(`${SNS}/comments`, { contentId: item, msg: 'Hello?' })).status).toBe(201);
    const [push] = await until(
      () => standIn.for(sub.id),
      (r) => r.length > 0,
    );
    expect(push.payload).toMatchObject({ type: 'comment', data: { contentId: item } });
  });

  it('should not push when notifications.push_notifications is off (the notification is still stored)', async () => {
    const user = await registerAndLogin(server);
    const fan = await registerAndLogin(server);
    const sub = await subscribed(user);
    await setSettings(user, { notifications: { push_notifications: false } });
    await follow(fan, user);
    await waitForNotification(user, (n) => n.type === 'follow');
    await settle(3_000);
    expect(standIn.for(sub.id)).toEqual([]);
  });

  it('should remove a subscription its push service answers 410, and keep the others', async () => {
    const user = await registerAndLogin(server);
    const fan = await registerAndLogin(server);
    const gone = await subscribed(user, 'gone');
    const live = await subscribed(user);
    expect(await subscriptionCount(user.userId)).toBe(2);
    await follow(fan, user);
    await until(
      () => subscriptionCount(user.userId),
      (n) => n === 1,
    );
    expect(standIn.refused).toContainEqual({ subscription: gone.id, status: 410 });
    await until(
      () => standIn.for(live.id),
      (r) => r.length === 1,
    );
  });

  it('should retry a failed send with backoff and deliver it once', { timeout: 60_000 }, async () => {
    const user = await registerAndLogin(server);
    const fan = await registerAndLogin(server);
    const flaky = await subscribed(user, 'fail-once');
    await follow(fan, user);
    await until(
      () => standIn.refused.filter((r) => r.subscription === flaky.id),
      (r) => r.length === 1,
    );
    const [push] = await until(
      () => standIn.for(flaky.id),
      (r) => r.length > 0,
      30_000,
    );
    expect(push.payload.type).toBe('follow');
    await settle(2_500);
    expect(standIn.for(flaky.id)).toHaveLength(1);
  });
});

describe('subscriptions', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await registerAndLogin(server);
  });

  it('should refuse bad subscriptions with the error envelope', async () => {
    const { body } = standIn.subscribe();
    const bad: unknown[] = [
      {},
      { keys: body.keys },
      { endpoint: body.endpoint },
      { ...body, endpoint: 'not a url' },
      { ...body, endpoint: body.endpoint.replace('https:', 'http:') },
      { ...body, endpoint: `${standIn.origin}/${'x'.repeat(2100)}` },
      { ...body, keys: { ...body.keys, p256dh: body.keys.p256dh.slice(0, 40) } },
      { ...body, keys: { ...body.keys, p256dh: '!!!' } },
      { ...body, keys: { ...body.keys, auth: Buffer.alloc(8).toString('base64url') } },
      { ...body, keys: { ...body.keys, auth: 12 } },
      { ...body, extra: 1 },
    ];
    for (const b of bad) expectErrorEnvelope(await user.api.post(SUBSCRIPTIONS, b), 400);
    expectErrorEnvelope(await new ApiClient(server.url).post(SUBSCRIPTIONS, body), 401);
    expectErrorEnvelope(await user.api.request('POST', SUBSCRIPTIONS, { rawBody: 'endpoint=x', headers: { 'content-type': 'text/plain' } }), 415);
  });

  it('should keep at most 10 per user, replacing the oldest', async () => {
    const many = await registerAndLogin(server);
    for (let i = 0; i < 12; i++) await subscribed(many);
    expect(await subscriptionCount(many.userId)).toBe(10);
  });

  it('should delete only the caller’s own subscription by endpoint', async () => {
    const other = await registerAndLogin(server);
    const sub = await subscribed(user);
    expectErrorEnvelope(await other.api.request('DELETE', SUBSCRIPTIONS, { body: { endpoint: sub.body.endpoint } }), 404);
    expectErrorEnvelope(await user.api.request('DELETE', SUBSCRIPTIONS, { body: { endpoint: 'nope' } }), 400);
    expectErrorEnvelope(await user.api.request('DELETE', SUBSCRIPTIONS, { body: {} }), 400);
    const removed = await user.api.request('DELETE', SUBSCRIPTIONS, { body: { endpoint: sub.body.endpoint } });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({ endpoint: sub.body.endpoint });
    expectErrorEnvelope(await user.api.request('DELETE', SUBSCRIPTIONS, { body: { endpoint: sub.body.endpoint } }), 404);

    // Gone means gone: a notification now reaches no push service.
    const fan = await registerAndLogin(server);
    await follow(fan, user);
    await waitForNotification(user, (n) => n.type === 'follow' && n.actor.userId === fan.userId);
    await settle(2_000);
    expect(standIn.for(sub.id)).toEqual([]);
  });
});
