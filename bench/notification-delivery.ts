// Notification delivery (docs/notifications.md): (1) latency from a committed `notify` + poke to
// `notification:new` on the recipient's socket, one at a time; (2) the sweep's throughput: a
// backlog of unpushed notifications (as a crash would leave) claimed and pushed to one socket.
//   npx tsx bench/notification-delivery.ts
// Env: BENCH_LATENCY_SAMPLES (300), BENCH_BACKLOG (10000), BENCH_DATABASE_URL (unset: embedded;
// set: a fresh database on that server is made and dropped).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { io } from 'socket.io-client';
import { loadConfig } from '../src/config.js';
import { startService } from '../service.js';
import { createLogger } from '../src/shared/logger.js';
import { postJson, runOnServer } from './bench-helpers.js';

const samples = Number(process.env.BENCH_LATENCY_SAMPLES ?? 300);
const backlog = Number(process.env.BENCH_BACKLOG ?? 10_000);
const serverUrl = process.env.BENCH_DATABASE_URL;

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'notif-bench-'));
  const dbName = `notif_bench_${randomBytes(4).toString('hex')}`;
  let databaseUrl: string | undefined;
  if (serverUrl) {
    await runOnServer(serverUrl, `CREATE DATABASE ${dbName}`);
    const u = new URL(serverUrl);
    u.pathname = `/${dbName}`;
    databaseUrl = u.toString();
  }
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    BCRYPT_ROUNDS: '4',
    RATE_LIMIT_SCALE: '100',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  const service = await startService(config, createLogger('silent'));
  try {
    // One user, signed in, with a /notifications socket.
    const phone = `+8490${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    await postJson(`${service.url}/auth/api/v1/register`, {
      username: `nb${Date.now()}`,
      password: 'password-123',
      phone_number: phone,
      given_name: 'N',
      family_name: 'B',
    });
    const otp = fs
      .readFileSync(config.smsOutboxFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.to === phone)
      .pop().code;
    await postJson(`${service.url}/auth/api/v1/verify-otp`, { phone_number: phone, otp });
    const login = (await postJson(`${service.url}/auth/api/v1/login`, { phone_number: phone, password: 'password-123' })).data;
    const userId: string = login.user.sub;
    const socket = io(`${service.url}/notifications`, { transports: ['websocket'], auth: { token: login.AccessToken }, reconnection: false });
    await new Promise<void>((resolve, reject) => socket.once('connect', () => resolve()).once('connect_error', reject));

    const { notifications } = service.services;
    const db = service.app.database.longRunning;

    // (1) Latency, one notification at a time.
    const latencies: number[] = [];
    for (let i = 0; i < samples; i++) {
      const id = randomUUID();
      const arrived = new Promise<void>((resolve) => {
        const on = (n: any) => {
          if (n.subject.id !== id) return;
          socket.off('notification:new', on);
          resolve();
        };
        socket.on('notification:new', on);
      });
      const started = performance.now();
      await db.transaction((tx) => notifications.notify(tx, { userId, type: 'saved_search.match', actorId: null, subject: { type: 'content', id } }));
      notifications.deliverSoon();
      await arrived;
      latencies.push(performance.now() - started);
    }

    // (2) A backlog of unpushed rows, as a crash would leave them, then one sweep.
    await db.rows(sql`
      insert into notifications (id, user_id, type, subject_type, subject_id)
      select gen_random_uuid(), ${userId}, 'saved_search.match', 'content', gen_random_uuid()::text from generate_series(1, ${backlog})`);
    let received = 0;
    const all = new Promise<void>((resolve) => {
      socket.on('notification:new', () => {
        if (++received === backlog) resolve();
      });
    });
    const sweepStarted = performance.now();
    await notifications.deliverPending();
    const claimedMs = performance.now() - sweepStarted;
    await all;
    const deliveredMs = performance.now() - sweepStarted;
    socket.close();

    console.log(`mode: ${databaseUrl ? 'server (PostgreSQL)' : 'embedded (PGlite)'}; ${os.cpus().length} CPUs`);
    console.log(
      `notify + commit + poke → notification:new (n=${samples}): p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`,
    );
    console.log(
      `sweep of a ${backlog}-row backlog: claimed and emitted in ${claimedMs.toFixed(0)} ms, all received in ${deliveredMs.toFixed(0)} ms (${Math.round(backlog / (deliveredMs / 1000))}/s)`,
    );
  } finally {
    await service.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (serverUrl) await runOnServer(serverUrl, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
