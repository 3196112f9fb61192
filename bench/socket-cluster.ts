// What the Socket.IO benches share: a scratch database on BENCH_DATABASE_URL's server, service
// nodes as child processes (server mode, one Redis prefix per run), seeded users with live
// sessions and one chat room, and the fan-out run: websocket clients spread over the nodes from
// client processes (bench/socket-clients.ts), one member sending room messages at a fixed rate,
// every member's client timing each `message:new`.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { io, type Socket } from 'socket.io-client';
import { TokenService } from '../src/auth/tokens.js';
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

export async function startNode(databaseUrl: string, redisPrefix: string, adapter: RealtimeAdapter = 'streams'): Promise<NodeProcess> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-bench-node-'));
  const child = fork(path.join(root, 'main.ts'), [], {
    cwd: root,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      REDIS_PREFIX: redisPrefix,
      REALTIME_ADAPTER: adapter,
      JWT_SECRET,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_SCALE: '1000',
      SCHEDULER_ENABLED: 'false',
      VIDEO_WORKERS: '0',
    },
  });
  const base = `http://127.0.0.1:${port}`;
  await waitReady(base, child);
  return { child, socketUrl: base };
}

export async function stopNode(node: NodeProcess): Promise<void> {
  if (node.child.exitCode !== null) return;
  const exited = new Promise((r) => node.child.once('exit', r));
  node.child.kill('SIGTERM');
  await Promise.race([exited, sleep(15_000)]);
  if (node.child.exitCode === null) node.child.kill('SIGKILL');
}

/** Applies the migrations (one node start), then seeds `clients + 1` users and a room of the first `members + 1` (the sender is user 0). */
export async function seed(databaseUrl: string, clients: number, members: number): Promise<Seeded> {
  await stopNode(await startNode(databaseUrl, 'bench-migrate:'));
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const users = await client.query<{ id: string; username: string }>(`
    insert into users (id, username, password_hash, phone_number, phone_verified, given_name, family_name)
    select gen_random_uuid(), 'bench' || i, 'unused', '+8491' || lpad(i::text, 7, '0'), true, 'Bench', i::text
    from generate_series(0, $1) i
    returning id, username`, [clients]);
  const ordered = users.rows.sort((a, b) => Number(a.username.slice(5)) - Number(b.username.slice(5)));
  const sessions = await client.query<{ id: string; user_id: string }>(`
    insert into sessions (id, user_id, refresh_token_hash, refresh_expires_at)
    select gen_random_uuid(), id, 'unused', now() + interval '1 day' from users where username like 'bench%'
    returning id, user_id`);
  const sessionOf = new Map(sessions.rows.map((s) => [s.user_id, s.id]));
  const roomId = (await client.query<{ id: string }>(`insert into chat_rooms (id, name) values (gen_random_uuid(), 'bench') returning id`)).rows[0].id;
  await client.query(`insert into chat_room_members (room_id, user_id) select $1, unnest($2::uuid[])`, [roomId, ordered.slice(0, members + 1).map((u) => u.id)]);
  await client.end();
  const tokenService = await TokenService.create(null as never, JWT_SECRET, 3600);
  const tokens = await Promise.all(ordered.map((u) => tokenService.signAccessToken({ userId: u.id, sessionId: sessionOf.get(u.id)!, username: u.username })));
  return { tokens, roomId };
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
    for (let w = 0; w < o.workers; w++) workers.push(fork(path.join(here, 'socket-clients.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
    const connected = await Promise.all(workers.map((w, i) => ask<{ connected: number; failed: number }>(w, { type: 'connect', job: { clients: jobs[i], roomId: seeded.roomId, concurrency: 50 } }, 'connected')));
    const connectSeconds = (Date.now() - started) / 1000;
    const failed = connected.reduce((s, c) => s + c.failed, 0);
    await sleep(1000);
    const rssAfter = nodes.map((n) => rssKb(n.child.pid!));

    const sender: Socket = io(nodes[0].socketUrl + '/chat', { transports: ['websocket'], auth: { token: seeded.tokens[0] }, reconnection: false });
    await new Promise<void>((resolve, reject) => {
      sender.once('connect', () => resolve());
      sender.once('connect_error', reject);
    });
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
    };
  } finally {
    for (const w of workers) w.send({ type: 'close' });
  }
}

/** Starts `count` nodes sharing one fresh Redis prefix. */
export async function startNodes(count: number, databaseUrl: string, adapter: RealtimeAdapter = 'streams'): Promise<NodeProcess[]> {
  const prefix = `bench-${randomBytes(4).toString('hex')}:`;
  const nodes: NodeProcess[] = [];
  for (let i = 0; i < count; i++) nodes.push(await startNode(databaseUrl, prefix, adapter));
  return nodes;
}

export function printFanout(title: string, r: FanoutResult): void {
  console.log(`\n== ${title}`);
  console.log(`connections per node      ${r.connectionsPerNode.join(' / ')} (${r.failed} failed; all connected in ${r.connectSeconds.toFixed(1)} s)`);
  console.log(`RSS per connection        ${r.rssPerConnectionKb.map((k) => k.toFixed(1) + ' KiB').join(' / ')}`);
  console.log(`deliveries                ${r.deliveries} of ${r.expected}`);
  console.log(`deliveries per second     ${Math.round(r.deliveriesPerSecond)}`);
  console.log(`delivery latency          p50 ${r.p50} ms, p99 ${r.p99} ms`);
}
