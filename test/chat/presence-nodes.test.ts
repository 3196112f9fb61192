// Presence across two nodes (server mode: one PostgreSQL, one Redis). Node A runs in this process;
// node B is a real second process (`node --import tsx main.ts`), so it can die without any
// cleanup (SIGKILL). A user connected to B is online for a client of A; when B dies, A's heartbeat
// finds B's deadline passed and takes B's users offline after PRESENCE_TTL_SECONDS (3 here), with
// last_seen_at = B's last heartbeat. Runs only when TEST_DATABASE_URL and TEST_REDIS_URL are set.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNode, testEnvironment, type TestServer } from '../helpers/server.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import type { RunningService } from '../../service.js';
import { closeAll, connect, nextEvent, type Transport } from '../realtime/socket-client.js';
import { freePort } from '../helpers/child-process.js';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
const SNS = '/sns/api/v1';
const TTL_SECONDS = 3;

/** Starts node B as its own process and waits until it is ready. */
async function startProcessNode(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`node B exited: ${stderr}`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return { url, child };
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`node B did not become ready: ${stderr}`);
}

describe.skipIf(!enabled)('presence across two nodes', () => {
  let nodeA: RunningService;
  let serverA: TestServer;
  let nodeB: { url: string; child: ChildProcess };
  let cleanup: () => Promise<void>;
  let dataDirB: string;
  let alice: TestUser;
  let carol: TestUser;

  beforeAll(async () => {
    const environment = await testEnvironment({ PRESENCE_TTL_SECONDS: String(TTL_SECONDS) });
    cleanup = environment.cleanup;
    nodeA = await startNode(environment.env);
    serverA = { url: nodeA.url, service: nodeA, dataDir: environment.env.DATA_DIR, env: environment.env, close: async () => undefined };
    dataDirB = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-node-b-'));
    nodeB = await startProcessNode({ ...environment.env, DATA_DIR: dataDirB });
    alice = await registerAndLogin(serverA, { given_name: 'Alice' });
    carol = await registerAndLogin(serverA, { given_name: 'Carol' });
    expect((await alice.api.post(`${SNS}/chat/rooms`, { memberIds: [carol.userId], name: 'across' })).status).toBe(201);
  }, 90_000);
  afterEach(() => closeAll());
  afterAll(async () => {
    if (nodeB?.child.exitCode === null) nodeB.child.kill('SIGKILL');
    await nodeA?.close();
    fs.rmSync(dataDirB, { recursive: true, force: true });
    await cleanup?.();
  });

  const presenceOnA = async (userId: string) => (await carol.api.get(`${SNS}/presence?user_ids=${userId}`)).body.data.users[0];

  it.each(['websocket', 'polling'] as Transport[])('should show a user connected to B as online on A, and offline when they leave (%s)', async (transport) => {
    const watching = await connect(nodeA.url, '/chat', carol.token, transport);
    const online = nextEvent(watching, 'presence', (p: any) => p.userId === alice.userId && p.online);
    const onB = await connect(nodeB.url, '/chat', alice.token, transport);
    await online;
    expect(await presenceOnA(alice.userId)).toMatchObject({ user_id: alice.userId, online: true });

    // A second socket on A: closing the one on B keeps the user online.
    const onA = await connect(nodeA.url, '/chat', alice.token, transport);
    onB.close();
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await presenceOnA(alice.userId)).online).toBe(true);

    const offline = nextEvent(watching, 'presence', (p: any) => p.userId === alice.userId && !p.online);
    onA.close();
    const went = await offline;
    expect(await presenceOnA(alice.userId)).toEqual({ user_id: alice.userId, online: false, last_seen_at: went.last_seen_at });
  });

  it('should not take the users of a node that stops gracefully offline at once, but after the expiry when they do not come back', async () => {
    const dataDirC = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-node-c-'));
    const nodeC = await startNode({ ...serverA.env, DATA_DIR: dataDirC });
    try {
      const watching = await connect(nodeA.url, '/chat', carol.token, 'websocket');
      const seen: any[] = [];
      watching.on('presence', (p: any) => p.userId === alice.userId && seen.push(p));
      const online = nextEvent(watching, 'presence', (p: any) => p.userId === alice.userId && p.online);
      await connect(nodeC.url, '/chat', alice.token, 'websocket');
      await online;
      const offline = nextEvent(watching, 'presence', (p: any) => p.userId === alice.userId && !p.online, 30_000);
      const stoppedAt = Date.now();
      await nodeC.close();
      // Right after the stop (its sockets handed over), still online: a client that reconnects
      // elsewhere within the expiry never flaps.
      expect((await presenceOnA(alice.userId)).online).toBe(true);
      await offline;
      expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual((TTL_SECONDS - 1) * 1000);
      expect(seen.map((p) => p.online)).toEqual([true, false]);
    } finally {
      await nodeC.close();
      fs.rmSync(dataDirC, { recursive: true, force: true });
    }
  }, 60_000);

  it('should take the users of a node that died offline after the expiry', async () => {
    const watching = await connect(nodeA.url, '/chat', carol.token, 'websocket');
    const online = nextEvent(watching, 'presence', (p: any) => p.userId === alice.userId && p.online);
    await connect(nodeB.url, '/chat', alice.token, 'websocket');
    await online;

    const offline = nextEvent(watching, 'presence', (p: any) => p.userId === alice.userId && !p.online, 30_000);
    const killedAt = Date.now();
    nodeB.child.kill('SIGKILL');
    const went = await offline;
    // Not before the expiry; last seen at B's last heartbeat (before the kill).
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual((TTL_SECONDS - 1) * 1000);
    expect(new Date(went.last_seen_at).getTime()).toBeLessThanOrEqual(killedAt);
    expect(await presenceOnA(alice.userId)).toEqual({ user_id: alice.userId, online: false, last_seen_at: went.last_seen_at });
  }, 60_000);
});
