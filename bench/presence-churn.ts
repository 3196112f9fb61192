// Presence churn: how many /chat connects + disconnects per second one node sustains in server
// mode (PostgreSQL + Redis), with presence flowing. One node runs as a child process; this
// process registers CHURN_USERS users in rooms of CHURN_ROOM_SIZE, keeps one watcher per room
// connected (the watchers receive the `presence` events), then runs CHURN_CONCURRENCY loops for
// CHURN_SECONDS, each connecting one of its own users to /chat (websocket), waiting for the
// connection, and closing it. Each cycle is one user going online and offline, so every watcher
// of that user's room should get two `presence` events. Prints cycles per second, connect
// latency p50/p99, presence events received vs expected, and whether every user ended offline.
//
//   npx tsx bench/presence-churn.ts
// Env: BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres), BENCH_REDIS_URL
// (redis://127.0.0.1:6379/0), CHURN_USERS (200), CHURN_ROOM_SIZE (10), CHURN_CONCURRENCY (20),
// CHURN_SECONDS (10), CHURN_NAMESPACE (/chat; /notifications churns sockets presence does not
// count, the baseline of what presence costs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { io, type Socket } from 'socket.io-client';
import { freePort, postJson, runOnServer, sleep, waitFor } from './bench-helpers.js';

const env = (name: string, fallback: string) => process.env[name] || fallback;
const serverUrl = env('BENCH_DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/postgres');
const redisUrl = env('BENCH_REDIS_URL', 'redis://127.0.0.1:6379/0');
const USERS = Number(env('CHURN_USERS', '200'));
const ROOM_SIZE = Number(env('CHURN_ROOM_SIZE', '10'));
const CONCURRENCY = Number(env('CHURN_CONCURRENCY', '20'));
const SECONDS = Number(env('CHURN_SECONDS', '10'));
/** `/notifications` churns sockets that presence does not count: the baseline without presence. */
const NAMESPACE = env('CHURN_NAMESPACE', '/chat');

interface BenchUser {
  userId: string;
  token: string;
  room: number;
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : NaN);

function open(url: string, token: string, namespace = '/chat'): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = io(url + namespace, { transports: ['websocket'], auth: { token }, reconnection: false, forceNew: true, timeout: 30_000 });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (err) => {
      socket.close();
      reject(err);
    });
  });
}

async function register(url: string, dataDir: string, i: number): Promise<{ userId: string; token: string }> {
  const phone = `+8490${String(1_000_000 + i).padStart(7, '0')}`;
  const password = 'password-123';
  await postJson(`${url}/auth/api/v1/register`, { username: `churn${i}`, password, phone_number: phone, given_name: 'Churn', family_name: String(i) });
  const outbox = fs
    .readFileSync(path.join(dataDir, 'sms-outbox.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const code = outbox.filter((e) => e.to === phone).pop().code;
  await postJson(`${url}/auth/api/v1/verify-otp`, { phone_number: phone, otp: code });
  const login = await postJson(`${url}/auth/api/v1/login`, { phone_number: phone, password });
  return { userId: login.data.user.sub, token: login.data.AccessToken };
}

async function main() {
  const name = `revs_churn_${randomBytes(4).toString('hex')}`;
  await runOnServer(serverUrl, `CREATE DATABASE ${name}`);
  const databaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-churn-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const node = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], {
    cwd: path.resolve(import.meta.dirname, '..'),
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: `revs-churn-${randomBytes(4).toString('hex')}:`,
      RATE_LIMIT_SCALE: '10000',
      BCRYPT_ROUNDS: '4',
      LOG_LEVEL: 'warn',
      SCHEDULER_ENABLED: '0',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const sockets: Socket[] = [];
  try {
    await waitFor(`${url}/readyz`, { child: node });
    console.log(`presence churn: 1 node (server mode), ${USERS} users in rooms of ${ROOM_SIZE}, ${CONCURRENCY} loops for ${SECONDS} s on ${NAMESPACE}`);

    // Users, rooms, and one watcher per room (the room's first user, always connected).
    const users: BenchUser[] = [];
    for (let i = 0; i < USERS; i++) users.push({ ...(await register(url, dataDir, i)), room: Math.floor(i / ROOM_SIZE) });
    const rooms = Math.ceil(USERS / ROOM_SIZE);
    const watchers: BenchUser[] = [];
    for (let r = 0; r < rooms; r++) {
      const members = users.filter((u) => u.room === r);
      const [watcher, ...others] = members;
      watchers.push(watcher);
      if (!others.length) continue;
      const res = await fetch(`${url}/sns/api/v1/chat/rooms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${watcher.token}` },
        body: JSON.stringify({ memberIds: others.map((u) => u.userId), name: `churn-${r}` }),
      });
      if (res.status !== 201) throw new Error(`room: ${res.status}`);
    }
    let presenceEvents = 0;
    for (const w of watchers) {
      const s = await open(url, w.token);
      s.on('presence', () => presenceEvents++);
      sockets.push(s);
    }
    await sleep(1_000);
    presenceEvents = 0;

    // Churners: everyone but the watchers, split between the loops (a user is never on two loops).
    const watcherIds = new Set(watchers.map((w) => w.userId));
    const churners = users.filter((u) => !watcherIds.has(u.userId));
    const loops = Array.from({ length: Math.min(CONCURRENCY, churners.length) }, (_, i) => churners.filter((_, j) => j % CONCURRENCY === i));
    const connectMs: number[] = [];
    let cycles = 0;
    let failures = 0;
    const started = Date.now();
    const until = started + SECONDS * 1000;
    await Promise.all(
      loops.map(async (own) => {
        for (let k = 0; Date.now() < until; k++) {
          const user = own[k % own.length];
          const t0 = performance.now();
          try {
            const s = await open(url, user.token, NAMESPACE);
            connectMs.push(performance.now() - t0);
            s.close();
            cycles++;
          } catch {
            failures++;
          }
        }
      }),
    );
    const elapsed = (Date.now() - started) / 1000;
    // Let the last offline transitions arrive.
    await sleep(3_000);
    // Each churner is in one room with one watcher: 2 events per cycle.
    const expected = cycles * 2;
    const stillOnline = await (async () => {
      let online = 0;
      for (let i = 0; i < churners.length; i += 100) {
        const ids = churners
          .slice(i, i + 100)
          .map((u) => u.userId)
          .join(',');
        const res = await fetch(`${url}/sns/api/v1/presence?user_ids=${ids}`, { headers: { authorization: `Bearer ${watchers[0].token}` } });
        online += ((await res.json()).data.users as { online: boolean }[]).filter((u) => u.online).length;
      }
      return online;
    })();
    connectMs.sort((a, b) => a - b);
    console.log(`\n== presence churn`);
    console.log(
      `cycles (connect + disconnect)   ${cycles} in ${elapsed.toFixed(1)} s = ${(cycles / elapsed).toFixed(0)}/s (${((cycles * 2) / elapsed).toFixed(0)} connects+disconnects/s)`,
    );
    console.log(`connect latency                 p50 ${percentile(connectMs, 0.5).toFixed(1)} ms, p99 ${percentile(connectMs, 0.99).toFixed(1)} ms`);
    console.log(`failed connects                 ${failures}`);
    // Fewer than 2 per cycle is right when a socket closed before its connect step reached Redis: the
    // service coalesces that online-offline pair into nothing.
    console.log(
      `presence events to watchers     ${presenceEvents} received, at most ${expected} (2 per cycle; ${((presenceEvents / Math.max(1, expected)) * 100).toFixed(1)}%)`,
    );
    console.log(`churners still online after 3 s ${stillOnline} of ${churners.length}`);
  } finally {
    for (const s of sockets) s.close();
    node.kill('SIGTERM');
    await new Promise((r) => node.once('exit', r));
    await runOnServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
