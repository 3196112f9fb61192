// Throughput and latency of the content listings over 100,000 items.
//   npx tsx bench/content-queries.ts      (BENCH_SECONDS=5, BENCH_CONNECTIONS=16, BENCH_ITEMS=100000)
// For each storage mode (embedded PGlite, then the PostgreSQL server at BENCH_DATABASE_URL,
// default postgres://postgres@127.0.0.1:5432/postgres, in a fresh database bench_<random> that is
// dropped afterwards; BENCH_MODES=embedded or =server runs one):
// 1. starts the service in this process, registers one viewer, seeds 200 uploaders, the items
//    (one INSERT … SELECT generate_series), some reactions and follows, prints the plans of the
//    search and viewport queries, and stops;
// 2. starts the service as a child process on the same storage and loads, with autocannon:
//    GET /all (a search and two filters), GET /completed (a map viewport), GET /feeds (first page).
// Prints requests/s, p50 and p99. Not part of `npm test`.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/config.js';
import { startService } from '../service.js';
import { createLogger } from '../src/shared/logger.js';
import { textArray } from '../src/db/sql-fragments.js';
import { freePort, postJson, SEEDING_SERVICE_ENV, waitFor } from './bench-helpers.js';
import { seedContent } from './seed-content.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const items = Number(process.env.BENCH_ITEMS ?? 100_000);
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const modes = (process.env.BENCH_MODES ?? 'embedded,server').split(',');

async function seed(storageEnv: Record<string, string>, dataDir: string): Promise<{ token: string }> {
  const config = loadConfig({
    ...storageEnv,
    DATA_DIR: dataDir,
    ...SEEDING_SERVICE_ENV,
  });
  const service = await startService(config, createLogger('warn'));
  const db = service.app.database.longRunning;
  try {
    const base = service.url;
    const phone = `+8490${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    const password = 'bench-password-1';
    await postJson(`${base}/auth/api/v1/register`, {
      username: `bench${Date.now().toString(36)}`,
      password,
      phone_number: phone,
      given_name: 'Bench',
      family_name: 'Viewer',
    });
    const outbox = fs
      .readFileSync(path.join(dataDir, 'sms-outbox.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    await postJson(`${base}/auth/api/v1/verify-otp`, { phone_number: phone, otp: outbox.filter((e) => e.to === phone).at(-1).code });
    const login = await postJson(`${base}/auth/api/v1/login`, { phone_number: phone, password });
    const viewerId: string = login.data.user.sub;

    await seedContent(db, items, viewerId);

    const allFilter = sql`c.deleted_at is null and (c.status = 'completed' or c.uploader_id = ${viewerId})
      and c.search_text like '%can%' and strpos(c.search_text, 'ho') > 0 and c.unit_price = 'VND' and c.amenities @> ${textArray(['pool'])}`;
    for (const [label, query] of [
      // The conditions /all builds for the benchmark request (signed in; `ho` is under 3 characters,
      // so strpos; the amenities list is a bound text[] as textArray sends it).
      [
        '/all page: search "can ho" + VND + pool, signed in',
        sql`select c.id from contents c join users u on u.id = c.uploader_id
        where ${allFilter} order by c.created_at desc, c.id desc limit 11`,
      ],
      [
        'selective search',
        sql`select c.id from contents c where c.deleted_at is null and c.status = 'completed'
        and c.search_text like '%biet thu dong da 4201%' order by c.created_at desc, c.id desc limit 10`,
      ],
      [
        'viewport (zoom 13)',
        sql`select c.id from contents c where c.deleted_at is null and c.status = 'completed'
        and c.latitude is not null and c.latitude between 10.7455 and 10.8145 and c.longitude between 106.6297 and 106.7703
        order by c.created_at desc, c.id desc limit 10`,
      ],
    ] as const) {
      const plan = await db.rows<Record<string, string>>(sql`explain (analyze, costs off) ${query}`);
      console.log(`\nplan: ${label}\n${plan.map((r) => '  ' + Object.values(r)[0]).join('\n')}`);
    }
    return { token: login.data.AccessToken };
  } finally {
    await service.close();
  }
}

interface Figures {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(label: string, url: string, headers: Record<string, string>): Promise<Figures> {
  await autocannon({ url, connections, duration: 1, headers });
  const r = await autocannon({ url, connections, duration: seconds, headers });
  return { label, requestsPerSecond: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts };
}

async function runMode(mode: string): Promise<Figures[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-bench-content-'));
  const storageEnv: Record<string, string> = {};
  let drop: (() => Promise<void>) | null = null;
  if (mode === 'server') {
    const name = `bench_${randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    storageEnv.DATABASE_URL = url.toString();
    drop = async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    };
  }
  let child: ChildProcess | null = null;
  try {
    console.log(`\n== ${mode} ==`);
    const { token } = await seed(storageEnv, dataDir);
    const port = await freePort();
    child = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? os.tmpdir(),
        ...storageEnv,
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_SCALE: '100000',
        SCHEDULER_ENABLED: 'false',
        VIDEO_WORKERS: '0',
        NODE_ENV: 'production',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/readyz`);
    const auth = { authorization: `Bearer ${token}` };
    const targets: [string, string][] = [
      ['GET /all search "can ho" + unit_price + amenities', `/content/api/v1/all?search=can%20ho&unit_price=VND&amenities=pool`],
      ['GET /completed viewport zoom 13', `/content/api/v1/completed?latitude=10.78&longitude=106.70&zoom_level=13`],
      ['GET /feeds first page', `/content/api/v1/feeds`],
    ];
    const results: Figures[] = [];
    for (const [label, target] of targets) {
      const probe = await fetch(base + target, { headers: auth });
      if (probe.status !== 200) throw new Error(`${target}: ${probe.status} ${await probe.text()}`);
      results.push(await load(`${mode}: ${label}`, base + target, auth));
    }
    return results;
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    if (drop) await drop().catch((err) => console.error('drop failed', err));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const all: Figures[] = [];
for (const mode of modes) all.push(...(await runMode(mode)));
const cpus = os.cpus();
console.log(`\n${items} items, ${connections} connections, ${seconds} s each; ${cpus.length} × ${cpus[0]?.model ?? 'CPU'}, Node ${process.version}\n`);
console.log('| target | requests/s | p50 ms | p99 ms | non-2xx | errors |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const r of all) console.log(`| ${r.label} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} |`);
