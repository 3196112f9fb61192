// `/all` loaded as real users load it (issue 32): every request a NEW query, made up when the
// request goes out (not a list cycled through, which a cache or a warmed index would learn), from
// 64 keep-alive connections, beside a bare uWebSockets.js hello-world in the same run.
//   npx tsx bench/search-random.ts
//   BENCH_MODES=server BENCH_SIZES=1000000 BENCH_SECONDS=10 npx tsx bench/search-random.ts
// A query: a word of the seeded vocabulary or none (one in four), the word misspelt in one search
// in five (two letters swapped), a price range on half, an area range on two in five, an order
// among created_at, price, area, price_per_area (either direction) and relevance (with a word),
// a page 1-25, per_page=20; the four facets (amenities, apartment_type, project_status, price) on
// half of the requests, and in targets of their own on none and on every request.
// Knobs: BENCH_MODES (embedded,server), BENCH_SIZES (100000), BENCH_SECONDS (10 per target, after
// BENCH_WARMUP_SECONDS, 2), BENCH_CONNECTIONS (64), BENCH_DATABASE_URL / BENCH_REDIS_URL (server
// mode: a scratch database and key prefix, removed after), BENCH_ONLY (only the targets whose
// label contains it), BENCH_PROFILE_DIR (a CPU profile of the service; bench/profile-summary.ts
// reads it), BENCH_NODE_ARGS (node flags for the service), BENCH_SERVICE (dist: compiled, as
// `npm start` runs it, built first when stale; tsx: main.ts through tsx), BENCH_BUILDS (dist: with
// BENCH_SERVICE=dist, the compiled services to load in turn on the same data, e.g.
// `dist,/tmp/before/dist`, to compare two versions of the code in the same conditions),
// BENCH_ROUNDS (1: how many times the builds are loaded in turn, A B A B...).
// Each target prints req/s, p50, p99, and the share of the target's wall time the service spent
// in garbage collection, per kind (its nodejs_gc_duration_seconds on /metrics before and after),
// and the service's CPU time per request (process_cpu_seconds_total): on a shared machine the
// rates move with the other work on it, the CPU per request much less.
// The load generator is autocannon in this process: a query costs it a few random numbers and
// one string; with the seeding done before, this process has nothing else to do during a target
// (the bare hello-world's figure, measured by the same generator, shows its ceiling).
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { decodeJwt } from 'jose';
import { z } from 'zod';
import { loadConfig } from '../src/config.js';
import { startService } from '../service.js';
import { createLogger } from '../src/shared/logger.js';
import { wordsOf } from '../src/content/search-index/search-text.js';
import { build, isStale } from '../scripts/build.mjs';
import { BARE_UWS_HELLO, benchChildren, benchUserToken, sleep, startedChild, stopChild, commaList, SEEDING_SERVICE_ENV } from './bench-helpers.js';
import { openBenchStorage, type BenchStorage } from './bench-storage.js';
import { CITIES, NAMES, seedContent } from './seed-content.js';

const env = z
  .object({
    BENCH_MODES: commaList(2)
      .pipe(z.array(z.enum(['embedded', 'server'])))
      .default(['embedded', 'server']),
    BENCH_SIZES: commaList(4)
      .pipe(z.array(z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(1).max(1_000_000))))
      .default([100_000]),
    BENCH_SECONDS: z.coerce.number().int().min(1).max(600).default(10),
    BENCH_WARMUP_SECONDS: z.coerce.number().int().min(0).max(60).default(2),
    BENCH_CONNECTIONS: z.coerce.number().int().min(1).max(1024).default(64),
    BENCH_DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//)
      .default('postgres://postgres@127.0.0.1:5432/postgres'),
    BENCH_REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//)
      .default('redis://127.0.0.1:6379/0'),
    BENCH_ONLY: z.string().optional(),
    BENCH_PROFILE_DIR: z.string().optional(),
    BENCH_NODE_ARGS: z
      .string()
      .transform((v) => v.split(' ').filter(Boolean))
      .default([]),
    BENCH_SERVICE: z.enum(['dist', 'tsx']).default('dist'),
    BENCH_BUILDS: commaList(4).default(['dist']),
    BENCH_ROUNDS: z.coerce.number().int().min(1).max(10).default(1),
  })
  .parse(Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined && v !== '')));

const JWT_SECRET = randomBytes(32).toString('hex');
const ALL = '/content/api/v1/all';
const FACETS = '&facets=amenities,apartment_type,project_status,price';

// ---- the queries, made up per request ----

const VOCABULARY = [...new Set([...NAMES, ...CITIES.flatMap((c) => [c.vi, c.en])].flatMap(wordsOf).filter((w) => !/^\d+$/.test(w)))];
/** Each word as sent, and misspelt (the 3rd and 4th letters swapped; a short word stays as it is). */
const WORDS = VOCABULARY.map((w) => encodeURIComponent(w));
const TYPOS = VOCABULARY.map((w) => encodeURIComponent(w.length >= 5 ? w.slice(0, 2) + w[3] + w[2] + w.slice(4) : w));
const ORDERS = ['created_at', 'price', 'area', 'price_per_area'];

const below = (n: number) => Math.floor(Math.random() * n);

/** A new `/all` query; `facets`: whether it asks the four facets. */
function randomQuery(facets: boolean): string {
  let path = `${ALL}?page=${1 + below(25)}&per_page=20`;
  const searched = Math.random() < 0.75;
  if (searched) path += `&search=${(Math.random() < 0.2 ? TYPOS : WORDS)[below(WORDS.length)]}`;
  if (Math.random() < 0.5) {
    const from = below(11) * 1e9;
    path += `&price_from=${from}&price_to=${from + (2 + below(9)) * 1e9}`;
  }
  if (Math.random() < 0.4) {
    const from = below(201);
    path += `&area_from=${from}&area_to=${from + 50 + below(101)}`;
  }
  // Relevance is one order in five where there is a word to rank by.
  if (searched && Math.random() < 0.2) path += '&column=relevance';
  else path += `&column=${ORDERS[below(ORDERS.length)]}&sort=${Math.random() < 0.5 ? 'asc' : 'desc'}`;
  return facets ? path + FACETS : path;
}

interface Target {
  label: string;
  /** A request's path, made up as it goes out. */
  path: () => string;
}

const TARGETS: Target[] = [
  { label: '/all, a new query per request, no facets', path: () => randomQuery(false) },
  { label: '/all, a new query per request, facets on half', path: () => randomQuery(Math.random() < 0.5) },
  { label: '/all, a new query per request, all four facets on each', path: () => randomQuery(true) },
];

// ---- the measuring ----

interface Row {
  label: string;
  rps: number;
  p50: number;
  p99: number;
  /** Share of the target's wall time in GC, per kind, e.g. `minor 3.1 %, major 0.4 %`. */
  gc: string;
  /** The service's CPU milliseconds per request. */
  cpuMs: string;
  note: string;
}

/**
 * The service's GC seconds so far, per kind (nodejs_gc_duration_seconds_sum on /metrics), and its
 * CPU seconds (process_cpu_seconds_total, under `cpu`).
 */
async function gcSeconds(base: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const kinds = new Map<string, number>();
  for (const m of text.matchAll(/^nodejs_gc_duration_seconds_sum\{kind="(\w+)"\} ([\d.e+-]+)$/gm)) kinds.set(m[1], Number(m[2]));
  const cpu = /^process_cpu_seconds_total ([\d.e+-]+)$/m.exec(text);
  if (cpu) kinds.set('cpu', Number(cpu[1]));
  return kinds;
}

async function load(base: string, target: Target, withGc: boolean): Promise<Row> {
  for (let i = 0; i < 20; i++) {
    const path = target.path();
    const res = await fetch(base + path);
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  }
  const options = {
    url: base,
    connections: env.BENCH_CONNECTIONS,
    requests: [{ method: 'GET' as const, setupRequest: (req: autocannon.Request) => ({ ...req, path: target.path() }) }],
  };
  if (env.BENCH_WARMUP_SECONDS > 0) await autocannon({ ...options, duration: env.BENCH_WARMUP_SECONDS });
  const before = withGc ? await gcSeconds(base) : null;
  const started = performance.now();
  const r = await autocannon({ ...options, duration: env.BENCH_SECONDS });
  const wall = (performance.now() - started) / 1000;
  const after = withGc ? await gcSeconds(base) : null;
  // The service's CPU per request: unlike the rate, it hardly moves with what else the machine runs.
  const cpuMs = before?.has('cpu') && after?.has('cpu') ? ((after.get('cpu')! - before.get('cpu')!) * 1000) / Math.max(1, r.requests.total) : null;
  before?.delete('cpu');
  after?.delete('cpu');
  const gc =
    before && after
      ? [...after]
          .map(([kind, s]) => `${kind} ${((100 * (s - (before.get(kind) ?? 0))) / wall).toFixed(1)} %`)
          .filter((t) => !t.endsWith(' 0.0 %'))
          .join(', ') || 'none'
      : '–';
  const row = {
    label: target.label,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    gc,
    cpuMs: cpuMs === null ? '–' : cpuMs.toFixed(2),
    note: r.non2xx || r.errors || r.timeouts ? `non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts}` : '',
  };
  console.log(
    `  ${row.label}: ${row.rps} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms; service CPU ${row.cpuMs} ms per request; GC ${row.gc}${row.note ? `; ${row.note}` : ''}`,
  );
  return row;
}

/** Seeds `items` through a service in this process (its migrations; a user for the follows). */
async function seed(storage: BenchStorage, items: number): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: storage.env.DATABASE_URL,
    DATA_DIR: storage.dataDir,
    ...SEEDING_SERVICE_ENV,
    JWT_SECRET,
  });
  const service = await startService(config, createLogger('warn'));
  try {
    const token = await benchUserToken(service.url, storage.dataDir);
    await service.services.listingIndex.settled();
    await seedContent(service.app.database.longRunning, items, String(decodeJwt(token).sub));
  } finally {
    await service.close();
  }
}

async function indexAnswers(base: string): Promise<void> {
  for (let i = 0; i < 3_000; i++) {
    if (/^listing_index_ready 1$/m.test(await (await fetch(`${base}/metrics`)).text())) return;
    await sleep(200);
  }
  throw new Error('the listing index never became ready');
}

async function snapshotWritten(base: string): Promise<boolean> {
  for (let i = 0; i < 1_500; i++) {
    if (/^listing_snapshots_written [1-9]/m.test(await (await fetch(`${base}/metrics`)).text())) return true;
    await sleep(200);
  }
  return false;
}

async function measureService(storage: BenchStorage, build: string): Promise<Row[]> {
  const childEnv = {
    ...storage.env,
    HOST: '127.0.0.1',
    DATA_DIR: storage.dataDir,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_SCALE: '100000',
    SCHEDULER_ENABLED: 'false',
    VIDEO_WORKERS: '0',
    JWT_SECRET,
  };
  const profile = env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${env.BENCH_PROFILE_DIR}`] : [];
  const service = env.BENCH_SERVICE === 'dist' ? [path.join(build, 'main.js')] : ['--import', 'tsx', 'main.ts'];
  const started = performance.now();
  const { child, base } = await startedChild([...profile, ...env.BENCH_NODE_ARGS, ...service], childEnv, '/healthz');
  try {
    await indexAnswers(base);
    console.log(`  the service answers from its index ${((performance.now() - started) / 1000).toFixed(1)} s after its start`);
    // A node that finds no recent snapshot writes one in the background once it answers (a full
    // read of the rows): the load starts after it, so the figures are of the node's steady state.
    console.log(
      `  ${(await snapshotWritten(base)) ? 'its snapshot of the index written' : 'no snapshot written within 5 minutes'} ${((performance.now() - started) / 1000).toFixed(1)} s after its start`,
    );
    const rows: Row[] = [];
    const named = env.BENCH_SERVICE === 'dist' && env.BENCH_BUILDS.length > 1 ? `${build}: ` : '';
    for (const t of TARGETS.filter((t) => !env.BENCH_ONLY || t.label.includes(env.BENCH_ONLY))) {
      rows.push(await load(base, { label: named + t.label, path: t.path }, true));
    }
    return rows;
  } finally {
    await stopChild(child);
  }
}

async function measureBare(): Promise<Row> {
  const { child, base } = await startedChild(['--input-type=module', '-e', BARE_UWS_HELLO], {}, '/');
  try {
    return await load(base, { label: 'bare uWebSockets.js hello-world', path: () => '/' }, false);
  } finally {
    await stopChild(child);
  }
}

async function main(): Promise<void> {
  if (env.BENCH_SERVICE === 'dist' && isStale()) {
    console.log('building dist/ (the service as npm start runs it)');
    build();
  }
  const cpus = os.cpus();
  console.log(
    `${cpus.length} × ${cpus[0]?.model ?? 'CPU'}, Node ${process.version}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const mode of env.BENCH_MODES) {
    for (const size of env.BENCH_SIZES) {
      console.log(`\n== ${mode} mode, ${size} items, ${env.BENCH_CONNECTIONS} connections, ${env.BENCH_SECONDS} s per target ==`);
      const storage = await openBenchStorage(mode, 'random', { databaseUrl: env.BENCH_DATABASE_URL, redisUrl: env.BENCH_REDIS_URL });
      try {
        await seed(storage, size);
        const rows: Row[] = [];
        const builds = env.BENCH_SERVICE === 'dist' ? env.BENCH_BUILDS : ['main.ts'];
        for (let round = 0; round < env.BENCH_ROUNDS; round++) for (const build of builds) rows.push(...(await measureService(storage, build)));
        rows.push(await measureBare());
        console.log(
          `\nload average after: ${os
            .loadavg()
            .map((l) => l.toFixed(2))
            .join(' ')}`,
        );
        console.log(
          `\n| request (${mode}, ${size} items) | req/s | p50 ms | p99 ms | service CPU ms per request | service GC, share of the time |\n|---|---:|---:|---:|---:|---|`,
        );
        for (const r of rows) console.log(`| ${r.label}${r.note ? ` (${r.note})` : ''} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.cpuMs} | ${r.gc} |`);
      } finally {
        await storage.cleanUp();
      }
    }
  }
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const child of benchChildren) child.kill('SIGTERM');
  });
