// Search load (issue 18): a different `/all` query on every request, from many connections, with
// the listing index (the only engine of listings), beside the cached first page, map
// clusters and a bare uWebSockets.js hello-world in the same run; and the index's memory.
//   node --expose-gc --import tsx bench/search-load.ts
//   BENCH_MODES=server BENCH_SIZES=10000 BENCH_SECONDS=5 node --expose-gc --import tsx bench/search-load.ts
// Knobs: BENCH_MODES (embedded,server), BENCH_SIZES (10000), BENCH_SECONDS (3 per target, after
// BENCH_WARMUP_SECONDS, 1), BENCH_CONNECTIONS (64), BENCH_DATABASE_URL (server mode: a scratch
// database on it, dropped after; default postgres://postgres@127.0.0.1:5432/postgres),
// BENCH_REDIS_URL (server mode, default redis://127.0.0.1:6379/0, keys under a unique prefix),
// BENCH_LOAD (on; off: only seed and measure the index's memory and in-process query time),
// BENCH_ROUNDS (3: rounds of the in-process timing, the first one a warm-up), BENCH_PROFILE_DIR
// (a CPU profile of the service while it answers from its index), BENCH_ONLY (only the targets
// whose label contains it, e.g. `different queries`), BENCH_NODE_ARGS (node flags for both
// service children, e.g. `--max-semi-space-size=32`), BENCH_SERVICE (dist: the service as
// `npm start` runs it, compiled to dist/ (built first when the sources changed); tsx: main.ts
// through tsx, as `npm run start:dev`, whose transform adds work to every function it creates).
// Each target also prints what the service's garbage collector did during it and the share of
// hits of each read cache it looked up (from /metrics).
// For each mode and size:
// 1. seeds in this process (seedContent: items over four cities, 15 project names) and, with
//    --expose-gc, measures the listing index's memory: heapUsed, and arrayBuffers (outside the
//    heap: typed arrays, the rows' buffers), after a full GC before and after loading every
//    listed item; then times the index's own answers in this process;
// 2. starts the service as a child (production, LOG_LEVEL=warn), waits until /metrics says the
//    index answers, and loads: `/all` with 2,000 different queries in turn (a word or two from
//    the seeded vocabulary, sometimes with a typo, a price range, an area range, one of seven
//    orders with relevance, a page 1-25), the same first page every time (the page cache),
//    `/completed/clusters` at zoom 3, 8, 12 and 16 around the cities, and `/completed` viewports;
// 3. the bare uWS hello-world.
// A sample of each target's requests is checked to answer 200 first. Not part of `npm test`.
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { decodeJwt } from 'jose';
import { z } from 'zod';
import { loadConfig } from '../src/config.js';
import { startService } from '../service.js';
import { createLogger } from '../src/shared/logger.js';
import { ListingIndex, type IndexView } from '../src/content/search-index/listing-index.js';
import { createRepositories } from '../src/services.js';
import { BARE_UWS_HELLO, benchUserToken, sleep, stopChild, commaList, SEEDING_SERVICE_ENV } from './bench-helpers.js';
import { benchChildren, startedChild } from './bench-helpers.js';
import { openBenchStorage, type BenchStorage } from './bench-storage.js';
import { CITIES, NAMES, seedContent } from './seed-content.js';
import { wordsOf } from '../src/content/search-index/search-text.js';
import { clustersQuery, completedQuery, listAllQuery } from '../src/content/schemas.js';
import { viewportAround } from '../src/content/index.js';
import { build, isStale } from '../scripts/build.mjs';

const env = z
  .object({
    BENCH_MODES: commaList(2)
      .pipe(z.array(z.enum(['embedded', 'server'])))
      .default(['embedded', 'server']),
    BENCH_SIZES: commaList(4)
      .pipe(z.array(z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(1).max(1_000_000))))
      .default([10_000]),
    BENCH_SECONDS: z.coerce.number().int().min(1).max(600).default(3),
    BENCH_WARMUP_SECONDS: z.coerce.number().int().min(0).max(60).default(1),
    BENCH_CONNECTIONS: z.coerce.number().int().min(1).max(1024).default(64),
    BENCH_DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//)
      .default('postgres://postgres@127.0.0.1:5432/postgres'),
    BENCH_REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//)
      .default('redis://127.0.0.1:6379/0'),
    BENCH_LOAD: z.enum(['on', 'off']).default('on'),
    BENCH_ROUNDS: z.coerce.number().int().min(2).max(100).default(3),
    BENCH_PROFILE_DIR: z.string().optional(),
    BENCH_ONLY: z.string().optional(),
    BENCH_NODE_ARGS: z
      .string()
      .transform((v) => v.split(' ').filter(Boolean))
      .default([]),
    BENCH_SERVICE: z.enum(['dist', 'tsx']).default('dist'),
  })
  .parse(Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined && v !== '')));

const JWT_SECRET = randomBytes(32).toString('hex');

const openStorage = (mode: 'embedded' | 'server'): Promise<BenchStorage> =>
  openBenchStorage(mode, 'search', { databaseUrl: env.BENCH_DATABASE_URL, redisUrl: env.BENCH_REDIS_URL });

const gc = (globalThis as { gc?: () => void }).gc;
/** Heap used, and memory of ArrayBuffers and Buffers outside the heap, after a full GC. */
const memoryUsed = (): { heap: number; outside: number } => {
  gc?.();
  gc?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return { heap: heapUsed, outside: arrayBuffers };
};

/** Seeds `items` and measures the index's memory over them (bytes per item, on the heap and outside it; null without --expose-gc). */
async function seedAndMeasure(
  storage: BenchStorage,
  items: number,
): Promise<{ bytesPerItem: number | null; outsidePerItem: number | null; listed: number; loadMs: number }> {
  const config = loadConfig({
    DATABASE_URL: storage.env.DATABASE_URL,
    DATA_DIR: storage.dataDir,
    ...SEEDING_SERVICE_ENV,
    JWT_SECRET,
  });
  const service = await startService(config, createLogger('warn'));
  try {
    const token = await benchUserToken(service.url, storage.dataDir);
    // The service's own index loads before the seeding (so it holds none of the items measured below).
    await service.services.listingIndex.settled();
    await seedContent(service.app.database.longRunning, items, String(decodeJwt(token).sub));
    const index = new ListingIndex(createRepositories(service.app.database).listings, () => true, createLogger('warn'));
    const before = memoryUsed();
    const started = Date.now();
    await index.start();
    const loadMs = Date.now() - started;
    const after = memoryUsed();
    const listed = index.size();
    timeInProcess(await index.view());
    index.stop();
    const perItem = (bytes: number) => (gc ? Math.round(bytes / Math.max(1, listed)) : null);
    return { bytesPerItem: perItem(after.heap - before.heap), outsidePerItem: perItem(after.outside - before.outside), listed, loadMs };
  } finally {
    await service.close();
  }
}

/**
 * The index's own time per query, in this process (no HTTP, no serialising): each of the 2,000
 * varied `/all` queries and the map clusters, BENCH_ROUNDS rounds (3); the first round warms what
 * the index remembers (terms' matches, ranks). Prints the CPU time per query of the later rounds
 * (process CPU, so other processes on the machine do not count) and their wall-time p50 and p99.
 */
function timeInProcess(index: IndexView): void {
  const visibility = { kind: 'published' as const };
  const timed = (label: string, run: (() => void)[]) => {
    const times: number[] = [];
    let cpu = process.cpuUsage();
    for (let round = 0; round < env.BENCH_ROUNDS; round++) {
      if (round === 1) cpu = process.cpuUsage();
      for (const query of run) {
        const t = performance.now();
        query();
        if (round > 0) times.push(performance.now() - t);
      }
    }
    const used = process.cpuUsage(cpu);
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(3);
    const perQuery = ((used.user + used.system) / 1000 / Math.max(1, times.length)).toFixed(3);
    console.log(`  in process: ${label}: CPU ${perQuery} ms per query; wall p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`);
  };
  timed(
    '/all, 2,000 different queries',
    variedAll().map((path) => {
      const q = listAllQuery.parse(Object.fromEntries(new URL(path, 'http://x').searchParams));
      const column = q.column === 'relevance' && !q.search ? 'created_at' : q.column;
      return () => index.page({ visibility, search: q.search, filters: q }, { column, direction: q.sort === 'asc' ? 'asc' : 'desc' }, q.page, q.per_page);
    }),
  );
  timed(
    '/all facets (all four), 2,000 different queries',
    variedAll().map((path) => {
      const q = listAllQuery.parse(Object.fromEntries(new URL(path, 'http://x').searchParams));
      return () => index.facets({ visibility, search: q.search, filters: q }, ['amenities', 'apartment_type', 'project_status', 'price']);
    }),
  );
  timed(
    '/completed, 40 viewports and pages',
    variedCompleted().map((path) => {
      const q = completedQuery.parse(Object.fromEntries(new URL(path, 'http://x').searchParams));
      const viewport = viewportAround(q.latitude!, q.longitude!, q.zoom_level);
      return () => index.page({ visibility, filters: {}, viewport }, { column: 'created_at', direction: 'desc' }, q.page, q.per_page);
    }),
  );
  for (const zoom of [3, 8, 12, 16]) {
    timed(
      `/completed/clusters zoom ${zoom}`,
      clusterPaths(zoom).map((path) => {
        const q = clustersQuery.parse(Object.fromEntries(new URL(path, 'http://x').searchParams));
        const box = { minLat: q.min_lat, maxLat: q.max_lat, minLng: q.min_lng, maxLng: q.max_lng, zoom: q.zoom };
        return () => index.clusters({ visibility, search: q.search, filters: q }, box, new Set());
      }),
    );
  }
}

// ---- the requests ----

/** A deterministic generator, so every run asks the same queries. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

const ORDERS = [
  'created_at&sort=desc',
  'created_at&sort=asc',
  'price&sort=asc',
  'price&sort=desc',
  'area&sort=desc',
  'price_per_area&sort=asc',
  'relevance&sort=desc',
];

/** 2,000 different `/all` queries: words (a typo in one of five), ranges, an order, a page 1-25. */
function variedAll(): string[] {
  const next = random(18);
  const vocabulary = [...new Set([...NAMES, ...CITIES.flatMap((c) => [c.vi, c.en])].flatMap(wordsOf).filter((w) => !/^\d+$/.test(w)))];
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)];
  const typo = (word: string) => (word.length >= 5 ? word.slice(0, 2) + word[3] + word[2] + word.slice(4) : word);
  const paths: string[] = [];
  for (let i = 0; i < 2_000; i++) {
    const parts: string[] = [];
    if (next() < 0.85) {
      const words = [pick(vocabulary)];
      if (next() < 0.3) words.push(pick(vocabulary));
      if (next() < 0.2) words[0] = typo(words[0]);
      parts.push(`search=${encodeURIComponent(words.join(' '))}`);
    }
    if (next() < 0.5) {
      const from = Math.round(next() * 10) * 1e9;
      parts.push(`price_from=${from}&price_to=${from + (2 + Math.round(next() * 8)) * 1e9}`);
    }
    if (next() < 0.4) {
      const from = Math.round(next() * 200);
      parts.push(`area_from=${from}&area_to=${from + 50 + Math.round(next() * 100)}`);
    }
    const order = pick(ORDERS);
    parts.push(`column=${order.startsWith('relevance') && !parts.some((p) => p.startsWith('search=')) ? 'created_at&sort=desc' : order}`);
    parts.push(`page=${1 + Math.floor(next() * 25)}&per_page=10`);
    paths.push(`/content/api/v1/all?${parts.join('&')}`);
  }
  return paths;
}

function clusterPaths(zoom: number): string[] {
  // A 1024x768 px viewport around each city at the zoom.
  return CITIES.map((c) => {
    const lngSpan = Math.min(180, (360 * 1024) / (256 * 2 ** zoom));
    const latSpan = Math.min(170, ((360 * 768) / (256 * 2 ** zoom)) * Math.cos((c.lat * Math.PI) / 180));
    const box = {
      min_lat: Math.max(-90, c.lat - latSpan / 2),
      max_lat: Math.min(90, c.lat + latSpan / 2),
      min_lng: Math.max(-180, c.lng - lngSpan / 2),
      max_lng: Math.min(180, c.lng + lngSpan / 2),
    };
    return `/content/api/v1/completed/clusters?min_lat=${box.min_lat.toFixed(4)}&max_lat=${box.max_lat.toFixed(4)}&min_lng=${box.min_lng.toFixed(4)}&max_lng=${box.max_lng.toFixed(4)}&zoom=${zoom}`;
  });
}

function variedCompleted(): string[] {
  return Array.from({ length: 40 }, (_, i) => {
    const city = CITIES[i % CITIES.length];
    return `/content/api/v1/completed?latitude=${(city.lat + ((i * 7) % 11) / 50 - 0.1).toFixed(3)}&longitude=${(city.lng + ((i * 5) % 13) / 60 - 0.1).toFixed(3)}&zoom_level=${12 + (i % 3)}&page=${1 + (i % 5)}`;
  });
}

interface Target {
  label: string;
  paths: string[];
}

const TARGETS = (): Target[] => [
  { label: '/all first page, always the same (page cache)', paths: ['/content/api/v1/all'] },
  { label: '/all, 2,000 different queries in turn', paths: variedAll() },
  // The same queries asking every facet (a client showing counts beside its filters).
  {
    label: '/all with all four facets, 2,000 different queries in turn',
    paths: variedAll().map((p) => `${p}&facets=amenities,apartment_type,project_status,price`),
  },
  ...[3, 8, 12, 16].map((zoom) => ({ label: `/completed/clusters zoom ${zoom} (4 cities)`, paths: clusterPaths(zoom) })),
  { label: '/completed, 40 viewports and pages in turn', paths: variedCompleted() },
];

interface Row {
  label: string;
  rps: number | null;
  p50: number;
  p99: number;
  note?: string;
}

/** The service's garbage collections so far, from /metrics: per kind, how many, their seconds, and how many took over 10 ms. */
async function gcSoFar(base: string): Promise<Map<string, { count: number; seconds: number; over10ms: number }>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const kinds = new Map<string, { count: number; seconds: number; over10ms: number }>();
  const of = (kind: string) => kinds.get(kind) ?? kinds.set(kind, { count: 0, seconds: 0, over10ms: 0 }).get(kind)!;
  for (const m of text.matchAll(/^nodejs_gc_duration_seconds_(count|sum)\{kind="(\w+)"\} ([\d.e+-]+)$/gm)) {
    if (m[1] === 'count') of(m[2]).count = Number(m[3]);
    else of(m[2]).seconds = Number(m[3]);
  }
  for (const m of text.matchAll(/^nodejs_gc_duration_seconds_bucket\{le="0.01",kind="(\w+)"\} ([\d.e+-]+)$/gm)) of(m[1]).over10ms = -Number(m[2]);
  for (const gc of kinds.values()) gc.over10ms += gc.count;
  return kinds;
}

/** What the service's garbage collector did between two readings, e.g. `major 3 (0.21 s, 2 over 10 ms)`. */
function gcBetween(before: Awaited<ReturnType<typeof gcSoFar>>, after: Awaited<ReturnType<typeof gcSoFar>>): string {
  return [...after]
    .map(([kind, a]) => {
      const b = before.get(kind) ?? { count: 0, seconds: 0, over10ms: 0 };
      return `${kind} ${a.count - b.count} (${(a.seconds - b.seconds).toFixed(2)} s, ${a.over10ms - b.over10ms} over 10 ms)`;
    })
    .join(', ');
}

/** The read caches' lookups so far, from /metrics: per cache, hits and misses. */
async function cacheLookupsSoFar(base: string): Promise<Map<string, { hit: number; miss: number }>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const caches = new Map<string, { hit: number; miss: number }>();
  for (const m of text.matchAll(/^read_cache_lookups_total\{cache="(\w+)",result="(hit|miss)"\} ([\d.e+-]+)$/gm)) {
    const kept = caches.get(m[1]) ?? caches.set(m[1], { hit: 0, miss: 0 }).get(m[1])!;
    kept[m[2] as 'hit' | 'miss'] = Number(m[3]);
  }
  return caches;
}

/** The share of hits of each read cache looked up between two readings, e.g. `item_texts 81 % of 24,000`. */
function hitsBetween(before: Awaited<ReturnType<typeof cacheLookupsSoFar>>, after: Awaited<ReturnType<typeof cacheLookupsSoFar>>): string {
  return [...after]
    .map(([cache, a]) => {
      const b = before.get(cache) ?? { hit: 0, miss: 0 };
      const hits = a.hit - b.hit;
      const lookups = hits + a.miss - b.miss;
      return lookups > 0 ? `${cache} ${Math.round((100 * hits) / lookups)} % of ${lookups.toLocaleString('en')}` : '';
    })
    .filter(Boolean)
    .join(', ');
}

async function load(base: string, target: Target, label: string): Promise<Row> {
  // A sample answers 200 (checking every path of a 2,000-query target first would take long).
  for (const p of target.paths.filter((_, i) => i % Math.ceil(target.paths.length / 20) === 0)) {
    const res = await fetch(base + p);
    if (res.status !== 200) return { label, rps: null, p50: 0, p99: 0, note: `${p} answered ${res.status}: ${(await res.text()).slice(0, 160)}` };
  }
  const requests = target.paths.map((p) => ({ method: 'GET' as const, path: p }));
  // Each connection is a user of its own: it goes through the queries from its own starting point,
  // so the connections do not ask the same query at the same moment (they would, in step, from
  // one shared list: bursts of one slow query and repeats the page cache answers).
  let connection = 0;
  const setupClient = (client: { setRequests(r: typeof requests): void }) => {
    const start = Math.floor((connection++ * requests.length) / env.BENCH_CONNECTIONS) % requests.length;
    client.setRequests([...requests.slice(start), ...requests.slice(0, start)]);
  };
  const options = { url: base, connections: env.BENCH_CONNECTIONS, requests, setupClient };
  if (env.BENCH_WARMUP_SECONDS > 0) await autocannon({ ...options, duration: env.BENCH_WARMUP_SECONDS });
  const gcBefore = await gcSoFar(base).catch(() => null);
  const cachesBefore = await cacheLookupsSoFar(base).catch(() => null);
  const r = await autocannon({ ...options, duration: env.BENCH_SECONDS });
  const gcAfter = await gcSoFar(base).catch(() => null);
  const cachesAfter = await cacheLookupsSoFar(base).catch(() => null);
  const row = {
    label,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    note: r.non2xx || r.errors ? `non-2xx ${r.non2xx}, errors ${r.errors}` : undefined,
  };
  const gc = gcBefore && gcAfter?.size ? `; GC: ${gcBetween(gcBefore, gcAfter)}` : '';
  const hits = cachesBefore && cachesAfter ? hitsBetween(cachesBefore, cachesAfter) : '';
  console.log(
    `  ${label}: ${row.rps} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms${row.note ? `, ${row.note}` : ''}${gc}${hits ? `; cache hits: ${hits}` : ''}`,
  );
  return row;
}

const started = startedChild;

async function indexAnswers(base: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (/^listing_index_ready 1$/m.test(await (await fetch(`${base}/metrics`)).text())) return;
    await sleep(100);
  }
  throw new Error('the listing index never became ready');
}

async function measureService(storage: BenchStorage): Promise<Row[]> {
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
  // BENCH_PROFILE_DIR: a CPU profile of the service answering from its index (bench/profile-summary.ts reads it).
  const profile = env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${env.BENCH_PROFILE_DIR}`] : [];
  const service = env.BENCH_SERVICE === 'dist' ? ['dist/main.js'] : ['--import', 'tsx', 'main.ts'];
  const { child, base } = await started([...profile, ...env.BENCH_NODE_ARGS, ...service], childEnv, '/readyz');
  try {
    await indexAnswers(base);
    const rows: Row[] = [];
    for (const t of TARGETS().filter((t) => !env.BENCH_ONLY || t.label.includes(env.BENCH_ONLY))) rows.push(await load(base, t, `index: ${t.label}`));
    return rows;
  } finally {
    await stopChild(child);
  }
}

async function measureBare(): Promise<Row> {
  const { child, base } = await started(['--input-type=module', '-e', BARE_UWS_HELLO], {}, '/');
  try {
    return await load(base, { label: 'bare uWebSockets.js hello-world', paths: ['/'] }, 'bare uWebSockets.js hello-world');
  } finally {
    await stopChild(child);
  }
}

async function main(): Promise<void> {
  if (!gc) console.warn('run with node --expose-gc for the memory figure');
  if (env.BENCH_SERVICE === 'dist' && env.BENCH_LOAD === 'on' && isStale()) {
    console.log('building dist/ (the service as npm start runs it)');
    build();
  }
  for (const mode of env.BENCH_MODES) {
    for (const size of env.BENCH_SIZES) {
      console.log(`\n== ${mode} mode, ${size} items, ${env.BENCH_CONNECTIONS} connections, ${env.BENCH_SECONDS} s per target ==`);
      const storage = await openStorage(mode);
      try {
        const memory = await seedAndMeasure(storage, size);
        if (env.BENCH_LOAD === 'on') {
          const rows = [...(await measureService(storage)), await measureBare()];
          console.log(`\n| request (${mode}, ${size} items) | req/s | p50 ms | p99 ms |\n|---|---|---|---|`);
          for (const r of rows) console.log(`| ${r.label} | ${r.rps ?? `not measured: ${r.note}`} | ${r.p50} | ${r.p99} |`);
        }
        const perItem =
          memory.bytesPerItem === null
            ? 'n/a (no --expose-gc)'
            : `${memory.bytesPerItem} bytes/item, ${((memory.bytesPerItem * 100_000) / 2 ** 20).toFixed(0)} MB per 100,000 items; ` +
              `outside the heap (typed arrays, the rows' buffers) ${memory.outsidePerItem} bytes/item`;
        console.log(`\nlisting index: ${memory.listed} listed items loaded in ${memory.loadMs} ms; heap ${perItem}`);
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
