// What the Socket.IO benches share: a scratch database on BENCH_DATABASE_URL's server, service
// nodes as child processes (server mode, one Redis prefix per run; or one embedded node on a data
// directory of its own), seeded users with live sessions and one chat room, and the fan-out run:
// websocket clients spread over the nodes from client processes (bench/socket-clients.ts), one
// member sending room messages at a fixed rate, every member's client timing each `message:new`,
// and each node's CPU seconds (from /proc) over the traffic.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { io, type Socket } from 'socket.io-client';
import { TokenService } from '../src/auth/tokens.js';
import type { Queryable } from '../src/db/client.js';
import { queryableOver } from '../src/db/queryable.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/shared/logger.js';
import { startService } from '../service.js';
import { freePort, sleep } from './bench-helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const env = (name: string, fallback: string) => process.env[name] || fallback;
export const DATABASE_SERVER = env('BENCH_DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/postgres');
export const REDIS_URL = env('BENCH_REDIS_URL', 'redis://127.0.0.1:6379/0');
const JWT_SECRET = randomBytes(32).toString('hex');

export type RealtimeAdapter = 'rooms' | 'streams' | 'pubsub' | 'sharded';

export interface NodeProcess {
  child: ChildProcess;
  /** Where clients connect for Socket.IO. */
  socketUrl: string;
}

export interface Seeded {
  tokens: string[];
  roomId: string;
}

export interface FanoutOptions {
  clients: number;
  members: number;
  messages: number;
  /** Messages per second the sender offers. */
  rate: number;
  workers: number;
}

export interface FanoutResult {
  connectionsPerNode: number[];
  failed: number;
  rssPerConnectionKb: number[];
  deliveries: number;
  expected: number;
  deliveriesPerSecond: number;
  p50: number;
  p99: number;
  connectSeconds: number;
  /** Each node's CPU seconds (user + system) from the first send to the last delivery. */
  trafficCpuSeconds: number[];
  /** The system (kernel) part of `trafficCpuSeconds`. */
  trafficSystemSeconds: number[];
  /** The main thread's part of `trafficCpuSeconds` (user + system). */
  trafficMainThreadSeconds: number[];
  /** Each node's CPU seconds over an idle window just before, scaled to the traffic window's length. */
  idleCpuSeconds: number[];
}

/**
 * CPU seconds a process has used so far, in user and in system (kernel) mode; with `mainThread`,
 * those of its main thread only (the event loop: Socket.IO, uWS; not PGlite's worker nor the GC's helpers).
 */
export function cpuTimes(pid: number, mainThread = false): { user: number; system: number } {
  const fields = fs
    .readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8')
    .split(') ')[1]
    .split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 }; // utime, stime in clock ticks (USER_HZ = 100)
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

function rssKb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]);
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`node exited with ${child.exitCode}`);
    try {
      if ((await fetch(url + '/readyz')).status === 200) return;
    } catch {
      /* not up yet */
    }
    await sleep(100);
  }
  throw new Error('node did not become ready');
}

/** A fresh database on the bench server; `drop` removes it. */
export async function scratchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: DATABASE_SERVER });
  await admin.connect();
  const name = `revs_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(DATABASE_SERVER);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    },
  };
}

/** The node's environment: the bench's own, without storage settings it did not choose, plus `env`. */
function nodeEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'REDIS_PREFIX', 'REALTIME_ADAPTER']) delete inherited[name];
  return {
    ...inherited,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    JWT_SECRET,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_SCALE: '1000',
    SCHEDULER_ENABLED: 'false',
    VIDEO_WORKERS: '0',
    ...env,
  };
}

async function forkNode(env: Record<string, string>): Promise<NodeProcess> {
  const port = await freePort();
  const child = fork(path.join(root, 'main.ts'), [], {
    cwd: root,
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: nodeEnv({ ...env, PORT: String(port) }),
  });
  const base = `http://127.0.0.1:${port}`;
  await waitReady(base, child);
  return { child, socketUrl: base };
}

export async function startNode(
  databaseUrl: string,
  redisPrefix: string,
  adapter: RealtimeAdapter = 'streams',
  env: Record<string, string> = {},
): Promise<NodeProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-bench-node-'));
  return forkNode({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl, REDIS_URL, REDIS_PREFIX: redisPrefix, REALTIME_ADAPTER: adapter, ...env });
}

/** One embedded node (PGlite in `dataDir`, no Redis: the in-memory adapter), seeded with `seedEmbedded`. */
export function startEmbeddedNode(dataDir: string, env: Record<string, string> = {}): Promise<NodeProcess> {
  return forkNode({ DATA_DIR: dataDir, ...env });
}

export async function stopNode(node: NodeProcess): Promise<void> {
  if (node.child.exitCode !== null) return;
  const exited = new Promise((r) => node.child.once('exit', r));
  node.child.kill('SIGTERM');
  await Promise.race([exited, sleep(15_000)]);
  if (node.child.exitCode === null) node.child.kill('SIGKILL');
}

/** Seeds `clients + 1` users with live sessions and a room of the first `members + 1` (the sender is user 0). */
async function seedUsers(db: Queryable, clients: number, members: number): Promise<Seeded> {
  const users = await db.rows<{ id: string; username: string }>(sql`
    insert into users (id, username, password_hash, phone_number, phone_verified, given_name, family_name)
    select gen_random_uuid(), 'bench' || i, 'unused', '+8491' || lpad(i::text, 7, '0'), true, 'Bench', i::text
    from generate_series(0, ${clients}::int) i
    returning id, username`);
  const ordered = users.sort((a, b) => Number(a.username.slice(5)) - Number(b.username.slice(5)));
  const sessions = await db.rows<{ id: string; user_id: string }>(sql`
    insert into sessions (id, user_id, refresh_token_hash, refresh_expires_at)
    select gen_random_uuid(), id, 'unused', now() + interval '1 day' from users where username like 'bench%'
    returning id, user_id`);
  const sessionOf = new Map(sessions.map((s) => [s.user_id, s.id]));
  const roomId = (await db.rows<{ id: string }>(sql`insert into chat_rooms (id, name) values (gen_random_uuid(), 'bench') returning id`))[0].id;
  await db.rows(sql`
    insert into chat_room_members (room_id, user_id)
    select ${roomId}::uuid, id from users where username like 'bench%' and substring(username from 6)::int <= ${members}::int`);
  const tokenService = await TokenService.create(null as never, JWT_SECRET, 3600);
  const tokens = await Promise.all(ordered.map((u) => tokenService.signAccessToken({ userId: u.id, sessionId: sessionOf.get(u.id)!, username: u.username })));
  return { tokens, roomId };
}

/** Applies the migrations (one node start), then seeds the database at `databaseUrl` (`seedUsers`). */
export async function seed(databaseUrl: string, clients: number, members: number): Promise<Seeded> {
  await stopNode(await startNode(databaseUrl, 'bench-migrate:'));
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await seedUsers(
      queryableOver((text, params) => client.query(text, params)),
      clients,
      members,
    );
  } finally {
    await client.end();
  }
}

/** Seeds an embedded node's data directory: the service starts in this process (it migrates), seeds, stops. */
export async function seedEmbedded(dataDir: string, clients: number, members: number): Promise<Seeded> {
  const config = loadConfig({ DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', JWT_SECRET, SCHEDULER_ENABLED: 'false', VIDEO_WORKERS: '0' });
  const service = await startService(config, createLogger('warn'));
  try {
    return await seedUsers(service.app.database, clients, members);
  } finally {
    await service.close();
  }
}

/** Sends `message` to a worker process and resolves with its first reply of type `answer`. */
export function ask<T>(child: ChildProcess, message: object, answer: string): Promise<T> {
  return new Promise((resolve) => {
    const listener = (m: { type: string }) => {
      if (m.type !== answer) return;
      child.off('message', listener);
      resolve(m as T);
    };
    child.on('message', listener);
    child.send(message);
  });
}

/** The idle window whose CPU is the baseline of the traffic's. */
const IDLE_WINDOW_MS = 2_000;

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);

/** Clients 1..clients spread round-robin over `nodes` (1..members in the room); user 0 sends from nodes[0]. */
export async function runFanout(nodes: NodeProcess[], seeded: Seeded, o: FanoutOptions): Promise<FanoutResult> {
  const workers: ChildProcess[] = [];
  try {
    await sleep(1000);
    const rssBefore = nodes.map((n) => rssKb(n.child.pid!));
    const jobs = Array.from({ length: o.workers }, () => [] as { url: string; token: string; member: boolean }[]);
    const perNode = nodes.map(() => 0);
    for (let i = 1; i <= o.clients; i++) {
      jobs[i % o.workers].push({ url: nodes[i % nodes.length].socketUrl, token: seeded.tokens[i], member: i <= o.members });
      perNode[i % nodes.length]++;
    }
    const started = Date.now();
    for (let w = 0; w < o.workers; w++)
      workers.push(fork(path.join(here, 'socket-clients.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
    const connected = await Promise.all(
      workers.map((w, i) =>
        ask<{ connected: number; failed: number }>(w, { type: 'connect', job: { clients: jobs[i], roomId: seeded.roomId, concurrency: 50 } }, 'connected'),
      ),
    );
    const connectSeconds = (Date.now() - started) / 1000;
    const failed = connected.reduce((s, c) => s + c.failed, 0);
    await sleep(1000);
    const rssAfter = nodes.map((n) => rssKb(n.child.pid!));

    const sender: Socket = io(nodes[0].socketUrl + '/chat', { transports: ['websocket'], auth: { token: seeded.tokens[0] }, reconnection: false });
    await new Promise<void>((resolve, reject) => {
      sender.once('connect', () => resolve());
      sender.once('connect_error', reject);
    });
    const pids = nodes.map((n) => n.child.pid!);
    const idleStart = Date.now();
    const idle0 = pids.map(cpuSeconds);
    await sleep(IDLE_WINDOW_MS);
    const idleCpu = pids.map((pid, i) => cpuSeconds(pid) - idle0[i]);
    const idleWindow = (Date.now() - idleStart) / 1000;
    const busy0 = pids.map(cpuSeconds);
    const system0 = pids.map((pid) => cpuTimes(pid).system);
    const mainThreadSeconds = (pid: number) => {
      const { user, system } = cpuTimes(pid, true);
      return user + system;
    };
    const main0 = pids.map(mainThreadSeconds);
    const firstSend = Date.now();
    for (let i = 0; i < o.messages; i++) {
      const due = firstSend + (i * 1000) / o.rate;
      if (due > Date.now()) await sleep(due - Date.now());
      sender.emit('message:send', { roomId: seeded.roomId, msg: `bench:${i}:${Date.now()}` });
    }
    const expected = o.messages * o.members;
    let latencies: number[] = [];
    let lastArrival = firstSend;
    const deadline = Date.now() + 60_000;
    for (;;) {
      await sleep(500);
      const reports = await Promise.all(workers.map((w) => ask<{ latencies: number[]; lastAt: number }>(w, { type: 'report' }, 'report')));
      latencies = reports.flatMap((r) => r.latencies);
      lastArrival = Math.max(firstSend + 1, ...reports.map((r) => r.lastAt));
      if (latencies.length >= expected || Date.now() > deadline) break;
    }
    const trafficCpu = pids.map((pid, i) => cpuSeconds(pid) - busy0[i]);
    const trafficSystem = pids.map((pid, i) => cpuTimes(pid).system - system0[i]);
    const trafficMain = pids.map((pid, i) => mainThreadSeconds(pid) - main0[i]);
    const trafficWindow = (Date.now() - firstSend) / 1000;
    // Delivery window: from the first send to the last arrival anywhere.
    sender.close();
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      connectionsPerNode: perNode,
      failed,
      rssPerConnectionKb: rssAfter.map((after, i) => (after - rssBefore[i]) / perNode[i]),
      deliveries: latencies.length,
      expected,
      deliveriesPerSecond: latencies.length / ((lastArrival - firstSend) / 1000),
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      connectSeconds,
      trafficCpuSeconds: trafficCpu,
      trafficSystemSeconds: trafficSystem,
      trafficMainThreadSeconds: trafficMain,
      idleCpuSeconds: idleCpu.map((c) => (c * trafficWindow) / idleWindow),
    };
  } finally {
    for (const w of workers) w.send({ type: 'close' });
  }
}

/** Starts `count` nodes sharing one fresh Redis prefix (`env`: settings of their own). */
export async function startNodes(
  count: number,
  databaseUrl: string,
  adapter: RealtimeAdapter = 'streams',
  env: Record<string, string> = {},
): Promise<NodeProcess[]> {
  const prefix = `bench-${randomBytes(4).toString('hex')}:`;
  const nodes: NodeProcess[] = [];
  for (let i = 0; i < count; i++) nodes.push(await startNode(databaseUrl, prefix, adapter, env));
  return nodes;
}

/** The service's CPU microseconds per delivery: all of it, and above the idle baseline. */
export function cpuPerDelivery(r: FanoutResult): { all: number; aboveIdle: number } {
  const cpu = r.trafficCpuSeconds.reduce((a, b) => a + b, 0);
  const idle = r.idleCpuSeconds.reduce((a, b) => a + b, 0);
  return r.deliveries ? { all: (cpu / r.deliveries) * 1e6, aboveIdle: ((cpu - idle) / r.deliveries) * 1e6 } : { all: NaN, aboveIdle: NaN };
}

export function printFanout(title: string, r: FanoutResult): void {
  console.log(`\n== ${title}`);
  console.log(`connections per node      ${r.connectionsPerNode.join(' / ')} (${r.failed} failed; all connected in ${r.connectSeconds.toFixed(1)} s)`);
  console.log(`RSS per connection        ${r.rssPerConnectionKb.map((k) => k.toFixed(1) + ' KiB').join(' / ')}`);
  console.log(`deliveries                ${r.deliveries} of ${r.expected}`);
  console.log(`deliveries per second     ${Math.round(r.deliveriesPerSecond)}`);
  console.log(`delivery latency          p50 ${r.p50} ms, p99 ${r.p99} ms`);
  const perDelivery = cpuPerDelivery(r);
  const system = r.trafficSystemSeconds.reduce((a, b) => a + b, 0);
  const main = r.trafficMainThreadSeconds.reduce((a, b) => a + b, 0);
  console.log(
    `service CPU, traffic       ${r.trafficCpuSeconds.map((c) => c.toFixed(2)).join(' / ')} s, ${system.toFixed(2)} s of it system, ${main.toFixed(2)} s on the main thread (idle baseline ${r.idleCpuSeconds.map((c) => c.toFixed(2)).join(' / ')} s)`,
  );
  console.log(`service CPU per delivery  ${perDelivery.all.toFixed(2)} µs (${perDelivery.aboveIdle.toFixed(2)} µs above idle)`);
}
