// Soak: one node under steady mixed load for a long while, watching for leaks and stalls.
//   npx tsx bench/soak.ts                           (embedded PGlite, 10 minutes, 2,000 sockets)
//   SOAK_MINUTES=1 SOAK_SOCKETS=200 npx tsx bench/soak.ts          (a quick check of the script)
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres BENCH_REDIS_URL=redis://127.0.0.1:6379/0 \
//     npx tsx bench/soak.ts                         (server mode: a scratch database, dropped after)
// 1. Starts the service as a child process with bench/soak-probe.ts preloaded: every few seconds
//    it sends its RSS, heap, event-loop delay and active handles over IPC (no extra endpoint).
// 2. Registers SOAK_SOCKETS users (one per socket) plus one REST user, puts the socket users in
//    chat rooms of SOAK_ROOM_SIZE, and connects one Socket.IO client per user on /chat.
// 3. For SOAK_MINUTES: autocannon sends a mix of GET /healthz, GET /auth/api/v1/user/me,
//    GET /content/api/v1/feeds, GET /content/api/v1/all?…, and now and then a comment and a chat
//    message over REST, capped at SOAK_RPS; meanwhile every room gets a socket message every
//    SOAK_ROOM_INTERVAL_MS from a random member, and each delivery to each member is counted.
// Prints each minute: RSS, heap used, event-loop delay p99, active handles (Node's list: timers and
// libuv handles; uWS connections are not in it, their Socket.IO timers are), requests/s and errors;
// at the end: least-squares slope of RSS and heap (MB per minute, after a warm-up), event-loop
// delay p99 over the run, and the error counts (unexpected HTTP answers, socket disconnects,
// refused sends, lost chat messages). Not part of `npm test`.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { io, type Socket } from 'socket.io-client';
import { freePort, runOnServer, sleep, waitFor } from './bench-helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const MINUTES = num('SOAK_MINUTES', 10);
const SOCKETS = num('SOAK_SOCKETS', 2000);
const ROOM_SIZE = num('SOAK_ROOM_SIZE', 10);
const ROOM_INTERVAL_MS = num('SOAK_ROOM_INTERVAL_MS', 5000);
const RPS = num('SOAK_RPS', 200);
const CONNECTIONS = num('SOAK_CONNECTIONS', 16);
const SAMPLE_MS = num('SOAK_SAMPLE_MS', 5000);
/** A message not delivered to a member within this long counts as lost. */
const DELIVERY_GRACE_MS = 10_000;
const serverDatabase = process.env.BENCH_DATABASE_URL;
const serverRedis = process.env.BENCH_REDIS_URL;

const mb = (bytes: number) => bytes / 1024 / 1024;

async function call(base: string, method: string, urlPath: string, body?: unknown, token?: string): Promise<any> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(base + urlPath, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`${method} ${urlPath}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Runs fn over items with at most `limit` in flight. */
async function pool<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

interface User {
  id: string;
  phone: string;
  token: string;
}

/** Registers all users, then verifies them with the codes of one read of the SMS outbox, then logs them in. */
async function createUsers(base: string, dataDir: string, count: number): Promise<User[]> {
  const tag = randomBytes(3).toString('hex');
  const password = 'soak-password-1';
  const phones = Array.from({ length: count }, (_, i) => `+8491${String(i).padStart(7, '0')}`);
  await pool(phones, 16, (phone, i) =>
    call(base, 'POST', '/auth/api/v1/register', { username: `soak${tag}${i}`, password, phone_number: phone, given_name: 'Soak', family_name: String(i) }),
  );
  const codes = new Map<string, string>();
  for (const line of fs.readFileSync(path.join(dataDir, 'sms-outbox.jsonl'), 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line);
    if (e.purpose === 'register') codes.set(e.to, e.code);
  }
  await pool(phones, 16, (phone) => call(base, 'POST', '/auth/api/v1/verify-otp', { phone_number: phone, otp: codes.get(phone) }));
  return pool(phones, 16, async (phone) => {
    const d = (await call(base, 'POST', '/auth/api/v1/login', { phone_number: phone, password })).data;
    return { id: d.user.sub, phone, token: d.AccessToken };
  });
}

interface Sample {
  at: number;
  rss: number;
  heapUsed: number;
  loopDelayP99Ms: number;
  handles: number;
  handleTypes: Record<string, number>;
}

/** Least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx ? sxy / sxx : NaN;
}

/** Sends `request` to the probe in the child and resolves with its answer of the same type. */
function askProbe<T>(child: ChildProcess, type: string): Promise<T | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('message', listener);
      resolve(null);
    }, 5_000);
    const listener = (m: { type?: string }) => {
      if (m?.type !== type) return;
      clearTimeout(timer);
      child.off('message', listener);
      resolve(m as T);
    };
    child.on('message', listener);
    child.send({ type });
  });
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-soak-'));
  const scratch = `revs_soak_${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {};
  if (serverDatabase) {
    await runOnServer(serverDatabase, `CREATE DATABASE ${scratch}`);
    env.DATABASE_URL = Object.assign(new URL(serverDatabase), { pathname: `/${scratch}` }).toString();
  }
  if (serverRedis) {
    env.REDIS_URL = serverRedis;
    env.REDIS_PREFIX = `revs-soak-${randomBytes(4).toString('hex')}:`;
  }
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './bench/soak-probe.ts', 'main.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      RATE_LIMIT_SCALE: '100000',
      SCHEDULER_ENABLED: 'false',
      VIDEO_WORKERS: '0',
      BCRYPT_ROUNDS: '4',
      SOAK_SAMPLE_MS: String(SAMPLE_MS),
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const samples: Sample[] = [];
  child.on('message', (m: { type?: string } & Sample) => {
    if (m?.type === 'soak:sample') samples.push(m);
  });
  // Widened by hand: set in a callback, which TypeScript's narrowing of the `null` does not see.
  let childExit = null as string | null;
  child.on('exit', (code, signal) => (childExit = `exit ${code ?? signal}`));

  const sockets: Socket[] = [];
  try {
    await waitFor(`${base}/readyz`, { child });
    const mode = serverDatabase ? `PostgreSQL server${serverRedis ? ' + Redis' : ''}` : 'embedded PGlite';
    console.log(
      `soak: ${MINUTES} min, ${mode}, ${SOCKETS} sockets in rooms of ${ROOM_SIZE} (one message per room every ${ROOM_INTERVAL_MS} ms), REST capped at ${RPS}/s over ${CONNECTIONS} connections`,
    );

    // Users, rooms, one content item for comments and listings.
    const setupStarted = Date.now();
    const users = await createUsers(base, dataDir, SOCKETS + 2);
    const [restUser, restPeer, ...socketUsers] = users;
    const content = await call(
      base,
      'POST',
      '/content/api/v1/content',
      {
        price: 2_500_000_000,
        unit_price: 'VND',
        area: 72,
        unit_area: 'm2',
        video: { original_name: 'tour.mp4', size: 1_000_000 },
        real_estate_info: { apartment_type: 'apartment', project_status: 'completed' },
        content_info: [{ lang: 'en', project_name: 'River view tower', description: 'Two bedrooms' }],
      },
      restUser.token,
    );
    const contentId: string = content.data.id;
    const restRoom: string = (await call(base, 'POST', '/sns/api/v1/chat/rooms', { memberIds: [restPeer.id], name: 'soak-rest' }, restUser.token)).data.roomId;
    const groups: User[][] = [];
    for (let i = 0; i < socketUsers.length; i += ROOM_SIZE) groups.push(socketUsers.slice(i, i + ROOM_SIZE));
    const roomIds = await pool(
      groups,
      8,
      async (g) =>
        (await call(base, 'POST', '/sns/api/v1/chat/rooms', { memberIds: g.slice(1).map((u) => u.id), name: 'soak' }, g[0].token)).data.roomId as string,
    );

    // Socket clients: members are joined to their rooms on connect (CONTRACT §8).
    let disconnects = 0;
    let connectFailures = 0;
    const received = new Map<string, number>();
    const roomSockets: Socket[][] = groups.map(() => []);
    await pool(
      socketUsers,
      50,
      (u, i) =>
        new Promise<void>((resolve) => {
          const s = io(`${base}/chat`, { transports: ['websocket'], auth: { token: u.token }, forceNew: true, timeout: 30_000 });
          s.on('message:new', (m: { msg?: string }) => {
            if (m?.msg?.startsWith('soak:')) received.set(m.msg, (received.get(m.msg) ?? 0) + 1);
          });
          s.on('disconnect', () => disconnects++);
          s.once('connect', () => {
            sockets.push(s);
            roomSockets[Math.floor(i / ROOM_SIZE)].push(s);
            resolve();
          });
          s.once('connect_error', () => {
            connectFailures++;
            s.close();
            resolve();
          });
        }),
    );
    console.log(
      `setup: ${users.length} users, ${roomIds.length} rooms, ${sockets.length} sockets connected (${connectFailures} failed) in ${((Date.now() - setupStarted) / 1000).toFixed(1)} s\n`,
    );

    // Socket traffic: each room sends on its own timer, offset so the sends spread evenly.
    const sent: { msg: string; at: number; expected: number }[] = [];
    let refusedSends = 0;
    let seq = 0;
    const roomTimers = roomIds.map((roomId, r) => {
      const fire = () => {
        const members = roomSockets[r].filter((s) => s.connected);
        if (!members.length) return;
        const msg = `soak:${r}:${seq++}`;
        const sender = members[Math.floor(Math.random() * members.length)];
        sender
          .timeout(10_000)
          .emitWithAck('message:send', { roomId, msg })
          .then(
            (ack: { ok?: boolean }) => {
              if (ack?.ok) sent.push({ msg, at: Date.now(), expected: members.length });
              else refusedSends++;
            },
            () => refusedSends++,
          );
      };
      let interval: NodeJS.Timeout | undefined;
      const start = setTimeout(
        () => {
          fire();
          interval = setInterval(fire, ROOM_INTERVAL_MS);
        },
        (r * ROOM_INTERVAL_MS) / roomIds.length,
      );
      return () => {
        clearTimeout(start);
        clearInterval(interval);
      };
    });

    // REST mix: autocannon cycles each connection through this list.
    const json = { 'content-type': 'application/json' };
    const mix: autocannon.Request[] = [
      ...Array(10).fill({ method: 'GET', path: '/healthz' }),
      ...Array(15).fill({ method: 'GET', path: '/auth/api/v1/user/me' }),
      ...Array(10).fill({ method: 'GET', path: '/content/api/v1/feeds?per_page=10' }),
      ...Array(5).fill({ method: 'GET', path: '/content/api/v1/all?page=1&per_page=10&column=created_at&sort=desc' }),
      ...Array(5).fill({ method: 'GET', path: '/content/api/v1/all?search=river&price_from=1000&unit_area=m2&lang=en' }),
      ...Array(3).fill({ method: 'GET', path: `/content/api/v1/completed?page=1&per_page=10` }),
      { method: 'POST', path: '/sns/api/v1/comments', headers: json, body: JSON.stringify({ contentId, msg: 'soak comment' }) },
      { method: 'POST', path: '/sns/api/v1/chat/messages', headers: json, body: JSON.stringify({ roomId: restRoom, msg: 'soak rest message' }) },
    ];
    // Mixed up, so that the two writes do not land back to back on every connection.
    for (let i = mix.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [mix[i], mix[j]] = [mix[j], mix[i]];
    }

    let httpUnexpected = 0;
    let httpErrors = 0;
    let requests = 0;
    const statusCounts: Record<string, number> = {};
    // Start-up (migrations, first queries) and setup are not what the soak measures.
    await askProbe(child, 'soak:start');
    const started = Date.now();
    console.log('| min | RSS MB | heap MB | loop p99 ms | handles | sockets | req/s | unexpected HTTP | disconnects | lost msgs |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    let lost = 0;
    let duplicates = 0;
    let settled = 0;
    const settle = (upTo: number) => {
      // Messages old enough to have reached everyone: count what never arrived.
      while (settled < sent.length && sent[settled].at <= upTo) {
        const m = sent[settled++];
        const got = received.get(m.msg) ?? 0;
        if (got < m.expected) lost += m.expected - got;
        if (got > m.expected) duplicates += got - m.expected;
        received.delete(m.msg);
      }
    };
    for (let minute = 1; minute <= MINUTES; minute++) {
      const r = await autocannon({
        url: base,
        connections: CONNECTIONS,
        duration: 60,
        overallRate: RPS,
        headers: { authorization: `Bearer ${restUser.token}` },
        requests: mix,
      });
      requests += r.requests.total;
      const minuteStatuses = (r as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
      let unexpected = 0;
      for (const [code, { count }] of Object.entries(minuteStatuses)) {
        statusCounts[code] = (statusCounts[code] ?? 0) + count;
        if (!code.startsWith('2')) unexpected += count;
      }
      httpUnexpected += unexpected;
      httpErrors += r.errors + r.timeouts;
      settle(Date.now() - DELIVERY_GRACE_MS);
      const probe = await askProbe<{ loopDelayP99Ms: number }>(child, 'soak:minute');
      const last = samples.at(-1);
      console.log(
        `| ${minute} | ${last ? mb(last.rss).toFixed(1) : '?'} | ${last ? mb(last.heapUsed).toFixed(1) : '?'} | ${probe?.loopDelayP99Ms ?? '?'} | ${last?.handles ?? '?'} | ` +
          `${sockets.filter((s) => s.connected).length} | ${Math.round(r.requests.average)} | ${unexpected + r.errors + r.timeouts} | ${disconnects} | ${lost} |`,
      );
      if (childExit) throw new Error(`the service stopped: ${childExit}`);
    }

    roomTimers.forEach((stop) => stop());
    await sleep(DELIVERY_GRACE_MS);
    settle(Infinity);
    const overall = await askProbe<{ loopDelayP99Ms: number; loopDelayMaxMs: number }>(child, 'soak:overall');

    // Growth after a warm-up (the first fifth of the run, at least a minute when there is room).
    const warmup = MINUTES >= 3 ? Math.max(1, MINUTES / 5) : 0;
    const window = samples.filter((s) => s.at >= started && (s.at - started) / 60_000 >= warmup);
    const at = (s: Sample) => (s.at - started) / 60_000;
    const first = samples.find((s) => s.at >= started);
    const lastSample = samples.at(-1);
    console.log(
      `\nafter ${((Date.now() - started) / 60_000).toFixed(1)} min, ${requests} REST requests (statuses ${JSON.stringify(statusCounts)}), ${sent.length} socket messages sent`,
    );
    console.log(
      `RSS slope                 ${slope(window.map((s) => [at(s), mb(s.rss)])).toFixed(2)} MB/min (samples from minute ${warmup.toFixed(1)} on: ${window.length})`,
    );
    console.log(`heap used slope           ${slope(window.map((s) => [at(s), mb(s.heapUsed)])).toFixed(2)} MB/min`);
    console.log(
      `RSS / heap used           ${first ? mb(first.rss).toFixed(1) : '?'} → ${lastSample ? mb(lastSample.rss).toFixed(1) : '?'} MB / ${first ? mb(first.heapUsed).toFixed(1) : '?'} → ${lastSample ? mb(lastSample.heapUsed).toFixed(1) : '?'} MB`,
    );
    console.log(`event-loop delay          p99 ${overall?.loopDelayP99Ms ?? '?'} ms, max ${overall?.loopDelayMaxMs ?? '?'} ms (whole run)`);
    console.log(
      `active handles            ${first?.handles ?? '?'} → ${lastSample?.handles ?? '?'} ${lastSample ? JSON.stringify(lastSample.handleTypes) : ''}`,
    );
    console.log(
      `errors                    HTTP unexpected status ${httpUnexpected}, HTTP errors/timeouts ${httpErrors}, socket connect failures ${connectFailures}, ` +
        `disconnects ${disconnects}, refused sends ${refusedSends}, lost deliveries ${lost}, duplicate deliveries ${duplicates}`,
    );
  } finally {
    for (const s of sockets) s.close();
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const patience = new Promise((r) => setTimeout(r, 20_000).unref());
      await Promise.race([exited, patience]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (serverDatabase) await runOnServer(serverDatabase, `DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`).catch(() => undefined);
  }
}

await main();
