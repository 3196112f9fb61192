// Socket.IO load bench: two service nodes (child processes, server mode: a fresh PostgreSQL
// database on BENCH_DATABASE_URL's server + Redis), 5,000 websocket clients spread over them from
// 4 client processes, 1,000 of them in one chat room; one member sends N room messages over the
// socket (`message:send`, the same operation as REST). Prints connections per node, resident
// memory per connection, deliveries per second and p50/p99 delivery latency; then the same run
// with Socket.IO on Node's own http server (bench/socket-http-node.ts), and the ratios.
//
//   npx tsx bench/sockets.ts
// Env: BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres), BENCH_REDIS_URL
// (redis://127.0.0.1:6379/0), BENCH_CLIENTS (5000), BENCH_MEMBERS (1000), BENCH_MESSAGES (200),
// BENCH_RATE (messages per second, 50), BENCH_WORKERS (4).
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
const DATABASE_SERVER = env('BENCH_DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/postgres');
const REDIS_URL = env('BENCH_REDIS_URL', 'redis://127.0.0.1:6379/0');
const CLIENTS = Number(env('BENCH_CLIENTS', '5000'));
const MEMBERS = Number(env('BENCH_MEMBERS', '1000'));
const MESSAGES = Number(env('BENCH_MESSAGES', '200'));
const RATE = Number(env('BENCH_RATE', '50'));
const WORKERS = Number(env('BENCH_WORKERS', '4'));
const JWT_SECRET = randomBytes(32).toString('hex');

type Variant = 'uWebSockets.js' | 'node:http';

interface NodeProcess {
  child: ChildProcess;
  /** Where clients connect for Socket.IO. */
  socketUrl: string;
}

interface RunResult {
  variant: Variant;
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

async function startNode(variant: Variant, databaseUrl: string, redisPrefix: string): Promise<NodeProcess> {
  const port = await freePort();
  const socketPort = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-bench-node-'));
  const entry = variant === 'uWebSockets.js' ? path.join(root, 'main.ts') : path.join(here, 'socket-http-node.ts');
  const child = fork(entry, [], {
    cwd: root,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      SOCKET_PORT: String(socketPort),
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      REDIS_PREFIX: redisPrefix,
      JWT_SECRET,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_SCALE: '1000',
      SCHEDULER_ENABLED: 'false',
      VIDEO_WORKERS: '0',
    },
  });
  const base = `http://127.0.0.1:${port}`;
  await waitReady(base, child);
  if (variant === 'node:http') {
    await new Promise<void>((resolve) => child.on('message', (m: { ready?: boolean }) => m.ready && resolve()));
  }
  return { child, socketUrl: variant === 'uWebSockets.js' ? base : `http://127.0.0.1:${socketPort}` };
}

async function stopNode(node: NodeProcess): Promise<void> {
  if (node.child.exitCode !== null) return;
  const exited = new Promise((r) => node.child.once('exit', r));
  node.child.kill('SIGTERM');
  await Promise.race([exited, sleep(15_000)]);
  if (node.child.exitCode === null) node.child.kill('SIGKILL');
}

/** Users, live sessions and one room with the first MEMBERS + 1 users (the sender is user 0). */
async function seed(databaseUrl: string): Promise<{ tokens: string[]; roomId: string }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const users = await client.query<{ id: string; username: string }>(`
    insert into users (id, username, password_hash, phone_number, phone_verified, given_name, family_name)
    select gen_random_uuid(), 'bench' || i, 'unused', '+8491' || lpad(i::text, 7, '0'), true, 'Bench', i::text
    from generate_series(0, $1) i
    returning id, username`, [CLIENTS]);
  const ordered = users.rows.sort((a, b) => Number(a.username.slice(5)) - Number(b.username.slice(5)));
  const sessions = await client.query<{ id: string; user_id: string }>(`
    insert into sessions (id, user_id, refresh_token_hash, refresh_expires_at)
    select gen_random_uuid(), id, 'unused', now() + interval '1 day' from users where username like 'bench%'
    returning id, user_id`);
  const sessionOf = new Map(sessions.rows.map((s) => [s.user_id, s.id]));
  const roomId = (await client.query<{ id: string }>(`insert into chat_rooms (id, name) values (gen_random_uuid(), 'bench') returning id`)).rows[0].id;
  await client.query(`insert into chat_room_members (room_id, user_id) select $1, unnest($2::uuid[])`, [roomId, ordered.slice(0, MEMBERS + 1).map((u) => u.id)]);
  await client.end();
  const tokenService = await TokenService.create(null as never, JWT_SECRET, 3600);
  const tokens = await Promise.all(ordered.map((u) => tokenService.signAccessToken({ userId: u.id, sessionId: sessionOf.get(u.id)!, username: u.username })));
  return { tokens, roomId };
}

function ask<T>(child: ChildProcess, message: object, answer: string): Promise<T> {
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

async function run(variant: Variant, databaseUrl: string, seeded: { tokens: string[]; roomId: string }): Promise<RunResult> {
  const prefix = `bench-${randomBytes(4).toString('hex')}:`;
  const nodes = [await startNode(variant, databaseUrl, prefix), await startNode(variant, databaseUrl, prefix)];
  const workers: ChildProcess[] = [];
  try {
    await sleep(1000);
    const rssBefore = nodes.map((n) => rssKb(n.child.pid!));
    // Client i (1..CLIENTS) goes to node i % 2; clients 1..MEMBERS are room members.
    const jobs = Array.from({ length: WORKERS }, () => [] as { url: string; token: string; member: boolean }[]);
    const perNode = [0, 0];
    for (let i = 1; i <= CLIENTS; i++) {
      jobs[i % WORKERS].push({ url: nodes[i % 2].socketUrl, token: seeded.tokens[i], member: i <= MEMBERS });
      perNode[i % 2]++;
    }
    const started = Date.now();
    for (let w = 0; w < WORKERS; w++) workers.push(fork(path.join(here, 'socket-clients.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
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
    for (let i = 0; i < MESSAGES; i++) {
      const due = firstSend + (i * 1000) / RATE;
      if (due > Date.now()) await sleep(due - Date.now());
      sender.emit('message:send', { roomId: seeded.roomId, msg: `bench:${i}:${Date.now()}` });
    }
    const expected = MESSAGES * MEMBERS;
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
      variant,
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
    await Promise.all(nodes.map(stopNode));
  }
}

function print(r: RunResult): void {
  console.log(`\n== Socket.IO on ${r.variant}`);
  console.log(`connections per node      ${r.connectionsPerNode.join(' / ')} (${r.failed} failed; all connected in ${r.connectSeconds.toFixed(1)} s)`);
  console.log(`RSS per connection        ${r.rssPerConnectionKb.map((k) => k.toFixed(1) + ' KiB').join(' / ')}`);
  console.log(`deliveries                ${r.deliveries} of ${r.expected}`);
  console.log(`deliveries per second     ${Math.round(r.deliveriesPerSecond)}`);
  console.log(`delivery latency          p50 ${r.p50} ms, p99 ${r.p99} ms`);
}

const admin = new pg.Client({ connectionString: DATABASE_SERVER });
await admin.connect();
const dbName = `revs_bench_${randomBytes(4).toString('hex')}`;
await admin.query(`CREATE DATABASE ${dbName}`);
const dbUrl = new URL(DATABASE_SERVER);
dbUrl.pathname = `/${dbName}`;
try {
  console.log(`bench: ${CLIENTS} websocket clients on 2 nodes, ${MEMBERS} in one room, ${MESSAGES} messages at ${RATE}/s, ${WORKERS} client processes`);
  // The first node start applies the migrations; seed after it.
  const migrate = await startNode('uWebSockets.js', dbUrl.toString(), 'bench-migrate:');
  await stopNode(migrate);
  const seeded = await seed(dbUrl.toString());
  const uws = await run('uWebSockets.js', dbUrl.toString(), seeded);
  print(uws);
  const nodeHttp = await run('node:http', dbUrl.toString(), seeded);
  print(nodeHttp);
  console.log('\n== ratios (uWebSockets.js / node:http)');
  const avg = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  console.log(`RSS per connection        ${(avg(uws.rssPerConnectionKb) / avg(nodeHttp.rssPerConnectionKb)).toFixed(2)}`);
  console.log(`deliveries per second     ${(uws.deliveriesPerSecond / nodeHttp.deliveriesPerSecond).toFixed(2)}`);
  console.log(`p50 latency               ${(uws.p50 / nodeHttp.p50).toFixed(2)}`);
  console.log(`p99 latency               ${(uws.p99 / nodeHttp.p99).toFixed(2)}`);
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
  await admin.end();
}
