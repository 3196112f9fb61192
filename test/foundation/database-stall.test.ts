// A PostgreSQL server that stops answering on its open connections (CONTRACT §14): requests that
// need it answer 503 `service.error.unavailable` while it does (they never wait for it; listings,
// answered by the listing index in memory, go on), no write answered 503
// commits when the link returns, and the node serves again as soon as the server answers. A TCP
// proxy of the test's own sits between the node and the suite's PostgreSQL server; holding, it
// keeps every connection open and passes nothing, then delivers what it kept, as a healed network
// does. (A server that refuses connections: database-outage.test.ts.) Server mode only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asTestServer, startNode, testEnvironment } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import type { RunningService } from '../../service.js';

const enabled = Boolean(process.env.TEST_DATABASE_URL);
const AUTH = '/auth/api/v1';
const SESSIONS = '/content/api/v1/user/sessions';

describe.skipIf(!enabled)('PostgreSQL that stops answering', () => {
  let proxy: TcpProxy;
  let node: RunningService;
  let cleanup: () => Promise<void>;
  let user: TestUser;

  const sessionCount = async () => {
    const res = await user.api.get(SESSIONS);
    expect(res.status).toBe(200);
    return (res.body.data.sessions as unknown[]).length;
  };
  const loginAgain = () => new ApiClient(node.url).post(`${AUTH}/login`, { phone_number: user.phone, password: user.password });

  beforeAll(async () => {
    proxy = await TcpProxy.before(process.env.TEST_DATABASE_URL!, 5432);
    // No jobs: the only transactions are the ones the test's requests make.
    const environment = await testEnvironment({ SCHEDULER_ENABLED: 'false', VIDEO_WORKERS: '0' });
    cleanup = environment.cleanup;
    node = await startNode({ ...environment.env, DATABASE_URL: proxy.through(environment.env.DATABASE_URL) });
    user = await registerAndLogin(asTestServer(node));
    await node.services.listingIndex.view(); // loaded
  }, 60_000);

  afterAll(async () => {
    proxy?.resume();
    await node?.close();
    await proxy?.close();
    await cleanup?.();
  });

  it('should answer 503 while the server holds its connections, and serve again as soon as it answers', async () => {
    expect((await user.api.get('/sns/api/v1/notifications')).status).toBe(200);
    const before = await sessionCount();

    proxy.hold();
    const [notifications, listing, login, rename] = await Promise.all([
      user.api.get('/sns/api/v1/notifications'),
      new ApiClient(node.url).get('/content/api/v1/all'),
      loginAgain(),
      user.api.put(`${AUTH}/user/me`, { given_name: 'Held' }),
    ]);
    // Every one answered while the server still said nothing.
    expect(proxy.held).toBe(true);
    for (const res of [notifications, login]) {
      expectErrorEnvelope(res, 503, 'service.error.unavailable');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Listings are the listing index's, in memory: answered as they were at the last change heard.
    expect(listing.status, listing.text).toBe(200);
    expectErrorEnvelope(rename, 503, 'service.error.unavailable');
    expect((await fetch(`${node.url}/healthz`)).status).toBe(200);

    proxy.resume();
    // The first request after the link returns is served.
    expect((await user.api.get('/sns/api/v1/notifications')).status).toBe(200);
    await proxy.settled();
    // The login answered 503 opened no session.
    expect(await sessionCount()).toBe(before);
  }, 30_000);

  it('should roll back a commit that reaches the server after the node stopped waiting for it', async () => {
    const before = await sessionCount();
    // A login opens its session in a transaction: the link stops answering just as its COMMIT is
    // sent, and delivers it only after the node has answered 503.
    proxy.holdOnClientText('commit_before');
    expectErrorEnvelope(await loginAgain(), 503, 'service.error.unavailable');
    expect(proxy.held).toBe(true);

    proxy.resume();
    await proxy.settled();
    expect(await sessionCount()).toBe(before);
    // And the next login commits as usual.
    expect((await loginAgain()).status).toBe(200);
    expect(await sessionCount()).toBe(before + 1);
  }, 30_000);
});
