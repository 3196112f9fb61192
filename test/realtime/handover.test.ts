// SIGTERM handover (CONTRACT §18): two service processes (`node --import tsx main.ts`) on one
// PostgreSQL database and one Redis; room members are connected to node A (websocket and
// long-polling clients) while messages keep being posted to the room. A gets SIGTERM: its
// clients reconnect to B by themselves, recover their sessions, and each has received exactly
// the room's history, in order: none lost, none doubled. A exits 0.
// Runs only with TEST_DATABASE_URL and TEST_REDIS_URL (the CI's server pass).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnvironment, type TestServer } from '../helpers/server.js';
import { ApiClient, registerAndLogin, type TestUser } from '../helpers/api.js';
import { RecoveringClient, until } from './recovering-client.js';
import type { Transport } from './socket-client.js';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SNS = '/sns/api/v1';

interface NodeProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  output: () => string;
}

async function startProcess(env: Record<string, string>): Promise<NodeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...env, LOG_LEVEL: 'info', SCHEDULER_ENABLED: 'false', VIDEO_WORKERS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const line = out.split('\n').find((l) => l.includes('"service listening"'));
    if (line) return { child, url: `http://127.0.0.1:${JSON.parse(line).port}`, exited, output: () => out };
    if (child.exitCode !== null) throw new Error(`node exited ${child.exitCode}: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`node did not start: ${out}`);
}

/** The room's whole history, oldest first. */
async function history(api: ApiClient, roomId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: any } = await api.get(
      `${SNS}/chat/rooms/${roomId}/messages?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(res.status).toBe(200);
    ids.push(...res.body.data.messages.map((m: { _id: string }) => m._id));
    cursor = res.body.data.hasMore ? res.body.data.nextCursor : null;
  } while (cursor);
  return ids.reverse();
}

describe.skipIf(!enabled)('SIGTERM handover between two processes', () => {
  let nodeA: NodeProcess;
  let nodeB: NodeProcess;
  let serverA: TestServer;
  let cleanup: () => Promise<void>;
  const dataDirB = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-handover-b-'));

  beforeAll(async () => {
    const environment = await testEnvironment();
    cleanup = environment.cleanup;
    nodeA = await startProcess(environment.env);
    nodeB = await startProcess({ ...environment.env, DATA_DIR: dataDirB });
    serverA = { url: nodeA.url, service: null as never, dataDir: environment.env.DATA_DIR, env: environment.env, close: async () => undefined };
  });
  afterAll(async () => {
    for (const node of [nodeA, nodeB]) {
      if (node && node.child.exitCode === null) {
        node.child.kill('SIGTERM');
        await Promise.race([node.exited, new Promise((r) => setTimeout(r, 15_000))]);
        if (node.child.exitCode === null) node.child.kill('SIGKILL');
      }
    }
    fs.rmSync(dataDirB, { recursive: true, force: true });
    await cleanup?.();
  });

  it('should move A’s clients to B with every room message exactly once', async () => {
    const sender = await registerAndLogin(serverA, { given_name: 'Sam', family_name: 'Ho' });
    const transports: Transport[] = ['websocket', 'websocket', 'polling', 'polling'];
    const members: TestUser[] = [];
    for (const _ of transports) members.push(await registerAndLogin(serverA));
    const room = (await sender.api.post(`${SNS}/chat/rooms`, { memberIds: members.map((m) => m.userId), name: 'busy' })).body.data;

    const clients = members.map((m, i) => new RecoveringClient([nodeA.url, nodeB.url], ['/chat'], m.token, transports[i]));
    try {
      await Promise.all(clients.map((c) => c.connect()));
      const back = Promise.all(clients.map((c) => c.reconnected(60_000)));

      // The busy room: messages posted one after another through B, before, during and after A stops.
      const senderOnB = new ApiClient(nodeB.url, sender.token);
      let posting = true;
      let posted = 0;
      const poster = (async () => {
        while (posting) {
          const res = await senderOnB.post(`${SNS}/chat/messages`, { roomId: room.roomId, msg: `busy ${posted}` });
          expect(res.status).toBe(201);
          posted++;
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      poster.catch(() => undefined); // a failed assertion stops the test; the poster's own end is awaited below
      await until(() => clients.every((c) => c.keys('/chat', 'message:new', (m) => m._id).length >= 5), 20_000, 'traffic before the stop');

      nodeA.child.kill('SIGTERM');
      await back;
      expect(await nodeA.exited).toBe(0);
      expect(nodeA.output()).toContain('realtime connections handed over');
      const quiet = (out: string) =>
        out
          .split('\n')
          .filter((l) => !l.includes('"msg":"request"'))
          .join('\n')
          .slice(-3000);
      for (const c of clients)
        expect(
          c.socket('/chat').recovered,
          `not recovered: ${JSON.stringify(clients.map((x) => [x.transport, x.connects, x.socket('/chat').recovered]))}\nA: ${quiet(nodeA.output())}\nB: ${quiet(nodeB.output())}`,
        ).toBe(true);
      const afterMove = posted;
      await until(() => posted >= afterMove + 10, 20_000, 'traffic after the move');
      posting = false;
      await poster;

      const ids = await history(senderOnB, room.roomId);
      expect(ids.length).toBe(posted);
      for (const c of clients) {
        await until(() => c.keys('/chat', 'message:new', (m) => m._id).length >= ids.length, 20_000, 'every message');
      }
      await new Promise((r) => setTimeout(r, 300)); // a doubled delivery would arrive now
      for (const c of clients) expect(c.keys('/chat', 'message:new', (m) => m._id)).toEqual(ids);
    } finally {
      for (const c of clients) c.close();
    }
  }, 120_000);
});
