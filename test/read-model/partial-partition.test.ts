// A revocation holds under a partial partition (CONTRACT §14): node A reaches Redis through a TCP
// proxy of the test's own, node B the real Redis (same database, same REDIS_PREFIX). The proxy
// stops passing anything while keeping A's connections open, so A does not even see its link go.
// Then a logout, an ended session and a reused refresh token on A answer either 200 with B
// refusing the token on its very next request, or 503 and B refusing it within 5 s of the link
// returning (and B drops the session's socket); a rename on A shows on B's next read; A still logs
// users in. Server mode only.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { asTestServer } from '../helpers/server.js';
import { startTwoNodes, type TwoNodes } from '../helpers/nodes.js';
import { ApiClient, expectErrorEnvelope, login, registerAndLogin, type ApiResponse, type TestUser } from '../helpers/api.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { closeAll, connect, disconnected } from '../realtime/socket-client.js';
import type { RunningService } from '../../service.js';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
const AUTH = '/auth/api/v1';
/** CONTRACT §14: a revocation answered 503 completes by itself within 5 s of the link returning. */
const COMPLETES_WITHIN_MS = 5_000;

describe.skipIf(!enabled)('revocations under a partial partition (node A cut from Redis)', () => {
  let proxy: TcpProxy;
  let nodeA: RunningService;
  let nodeB: RunningService;
  let nodes: TwoNodes | undefined;

  const on = (node: RunningService, token: string) => new ApiClient(node.url, token);
  const me = (node: RunningService, token: string) => on(node, token).get(`${AUTH}/user/me`);

  /** A user signed in on node A, with its session checked (and so cached) on both nodes. */
  async function userSeenOnBothNodes(): Promise<TestUser> {
    const user = await registerAndLogin(asTestServer(nodeA));
    expect((await me(nodeB, user.token)).status).toBe(200);
    expect((await me(nodeA, user.token)).status).toBe(200);
    return user;
  }

  /**
   * The revocation answered `answer` on A: done (`doneStatus`) and B refuses at once, or 503 and B
   * refuses within 5 s of the link returning. A refuses too.
   */
  async function refusedEverywhere(answer: ApiResponse, token: string, doneStatus = 200): Promise<void> {
    expect([doneStatus, 503]).toContain(answer.status);
    if (answer.status === 503) {
      expectErrorEnvelope(answer, 503, 'service.error.unavailable');
      proxy.resume();
      const deadline = Date.now() + COMPLETES_WITHIN_MS;
      while ((await me(nodeB, token)).status !== 401 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    }
    expectErrorEnvelope(await me(nodeB, token), 401, 'auth.error.session_revoked');
    expectErrorEnvelope(await me(nodeA, token), 401, 'auth.error.session_revoked');
  }

  beforeAll(async () => {
    proxy = await TcpProxy.before(process.env.TEST_REDIS_URL!, 6379);
    // Node A reaches Redis through the proxy, so the test can cut A alone from it.
    nodes = await startTwoNodes({ SCHEDULER_ENABLED: 'false', VIDEO_WORKERS: '0' }, (env) => ({ ...env, REDIS_URL: proxy.through(env.REDIS_URL) }));
    ({ nodeA, nodeB } = nodes);
  }, 60_000);

  afterEach(() => {
    closeAll();
    proxy.resume();
  });

  afterAll(async () => {
    proxy?.resume();
    await nodes?.close();
    await proxy?.close();
  });

  it('should refuse a session logged out on A on every node, and drop its socket on B', async () => {
    const user = await userSeenOnBothNodes();
    const socket = await connect(nodeB.url, '/notifications', user.token, 'websocket');
    const dropped = disconnected(socket, 20_000);
    proxy.hold();
    const logout = await on(nodeA, user.token).post(`${AUTH}/logout`, undefined, {
      headers: { 'x-user-username': user.username, 'x-session-id': user.sessionId },
    });
    await refusedEverywhere(logout, user.token);
    expect(await dropped).toBe('io server disconnect');
  }, 30_000);

  it('should refuse a session ended on A (DELETE /user/sessions/{id}) on every node', async () => {
    const user = await userSeenOnBothNodes();
    const other = await login(asTestServer(nodeA), user.phone, user.password);
    expect((await me(nodeB, other.token)).status).toBe(200);
    proxy.hold();
    const ended = await on(nodeA, user.token).delete(`/content/api/v1/user/sessions/${other.sessionId}`);
    await refusedEverywhere(ended, other.token);
    // The session that ended it goes on.
    expect((await me(nodeB, user.token)).status).toBe(200);
  }, 30_000);

  it('should end the session on every node when A is shown a used refresh token', async () => {
    const user = await userSeenOnBothNodes();
    const headers = { 'x-user-username': user.username, 'x-session-id': user.sessionId };
    proxy.hold();
    const refresh = (token: string) => new ApiClient(nodeA.url).post(`${AUTH}/refresh-token`, { refresh_token: token }, { headers });
    const first = await refresh(user.refreshToken);
    expect(first.status).toBe(200);
    const reuse = await refresh(user.refreshToken);
    if (reuse.status === 401) expectErrorEnvelope(reuse, 401, 'auth.error.refresh_token_reused');
    await refusedEverywhere(reuse, user.token, 401);
    expectErrorEnvelope(await refresh(first.body.data.RefreshToken), 401, 'auth.error.invalid_refresh_token');
  }, 30_000);

  it("should show a rename made on A in B's next read", async () => {
    const user = await userSeenOnBothNodes();
    expect((await me(nodeB, user.token)).body.data.given_name).toBe('Test');
    proxy.hold();
    expect((await on(nodeA, user.token).put(`${AUTH}/user/me`, { given_name: 'Renamed' })).status).toBe(200);
    expect((await me(nodeB, user.token)).body.data.given_name).toBe('Renamed');
  }, 30_000);

  it('should go on logging users in on A', async () => {
    const user = await registerAndLogin(asTestServer(nodeB));
    proxy.hold();
    const res = await new ApiClient(nodeA.url).post(`${AUTH}/login`, { phone_number: user.phone, password: user.password });
    expect(res.status).toBe(200);
    expect((await me(nodeB, res.body.data.AccessToken)).status).toBe(200);
  }, 30_000);
});
