// The read path, measured black-box beside its references in the same run:
//   npx tsx bench/read-path.ts
//   BENCH_MODES=server BENCH_SIZES=1000 BENCH_SECONDS=5 npx tsx bench/read-path.ts
//   BENCH_TARGETS=profiles-others,feed-deep-many BENCH_MODES=server BENCH_SIZES=10000 npx tsx bench/read-path.ts
// Knobs: BENCH_MODES (embedded,server), BENCH_SIZES (1000,100000 items), BENCH_SECONDS (5 per
// target, after BENCH_WARMUP_SECONDS, 2), BENCH_CONNECTIONS (64), BENCH_DATABASE_URL (server mode:
// a scratch database on it, dropped after; default postgres://postgres@127.0.0.1:5432/postgres),
// BENCH_REDIS_URL (server mode, default redis://127.0.0.1:6379/0, keys under a unique prefix,
// removed after), BENCH_PROFILE_DIR (server mode: also profile /user/me, see 4.), BENCH_VIEWERS (16:
// the users the many-user targets read as, each following 20 uploaders), BENCH_TARGETS (the keys of
// the targets to load, default all; the plain handler and the bare hello-world run only with `me`,
// `detail`, `feed` or `bare` among them).
// For each mode and size:
// 1. seeds in this process (the service started in-process: one viewer registered and logged in,
//    then seedContent's items, reactions and follows) and stops;
// 2. starts the service as a child (`node --import tsx main.ts`, production, LOG_LEVEL=warn) and
//    loads with autocannon: /user/me, the content detail (8 ids in turn), the first page of
//    /feeds, then /feeds pages 1-20 (cursors), /all (a search and two filters: the same request,
//    then 20 searches and pages in turn), /completed (a viewport: the same, then 20 viewports);
//    other users' profiles (64 pairs of BENCH_VIEWERS viewers and 200 uploaders in turn) and
//    /feeds pages 2-10 of every viewer in turn (each request with its viewer's token);
//    then the same with READ_CACHE=off (every read from the database);
// 3. the references: the plain handler (bench/plain-handler.ts: node:http + jose + pg with named
//    statements, or PGlite on a thread of its own as the service runs it; the same statements) on
//    /user/me, the detail and the first page of /feeds, and a bare uWebSockets.js hello-world (the
//    hello-world first, the plain handler after the service: in embedded mode it opens the data
//    directory once the service has closed it);
// 4. with BENCH_PROFILE_DIR, in server mode: the service (READ_CACHE=off) and the plain handler
//    again under /user/me load with --cpu-prof, and the summary of each profile (profile-summary.ts).
// Every request is checked to answer 200 before it is loaded. Prints one table per mode and size.
// Not part of `npm test`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { loadConfig } from '../src/config.js';
import { startService } from '../service.js';
import { createLogger } from '../src/shared/logger.js';
import { BARE_UWS_HELLO, benchChildren, commaList, postJson, SEEDING_SERVICE_ENV, startedChild, stopChild } from './bench-helpers.js';
import { openBenchStorage, type BenchStorage } from './bench-storage.js';
import { CITIES, seedContent } from './seed-content.js';
import { formatSummary, summariseProfile } from './profile-summary.js';

const env = z
  .object({
    BENCH_MODES: commaList(2)
      .pipe(z.array(z.enum(['embedded', 'server'])))
      .default(['embedded', 'server']),
    BENCH_SIZES: commaList(6)
      .pipe(z.array(z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(1).max(1_000_000))))
      .default([1000, 100_000]),
    BENCH_SECONDS: z.coerce.number().int().min(1).max(600).default(5),
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
    BENCH_PROFILE_DIR: z.string().min(1).optional(),
    BENCH_VIEWERS: z.coerce.number().int().min(1).max(200).default(16),
    BENCH_TARGETS: commaList(20).optional(),
  })
  .parse(Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined && v !== '')));
const { BENCH_SECONDS: seconds, BENCH_WARMUP_SECONDS: warmup, BENCH_CONNECTIONS: connections } = env;

// One secret for every process of the run: the seeding service signs the viewer's token with it,
// and the service children and the plain handler verify with it.
const JWT_SECRET = randomBytes(32).toString('hex');
// The token outlives the whole run (seeding 100k items and every load).
const ACCESS_TOKEN_TTL = String(6 * 3600);
// The same media URLs from every server, so answers are the same size.
const PUBLIC_BASE_URL = 'http://localhost:3000';

const openStorage = (mode: 'embedded' | 'server'): Promise<BenchStorage> =>
  openBenchStorage(mode, 'read', { databaseUrl: env.BENCH_DATABASE_URL, redisUrl: env.BENCH_REDIS_URL });

interface Seeded {
  token: string;
  /** Published items for the detail requests. */
  itemIds: string[];
  /** The tokens of the other viewers (BENCH_VIEWERS), each following 20 uploaders. */
  viewerTokens: string[];
  /** The uploaders' user ids, whose profiles the viewers read. */
  uploaderIds: string[];
}

/** Whether the target `key` is loaded in this run (BENCH_TARGETS). */
const wanted = (key: string) => !env.BENCH_TARGETS || env.BENCH_TARGETS.includes(key);

/** Starts the service in this process, registers and logs in the viewers, seeds `items`, stops. */
async function seed(storage: BenchStorage, items: number): Promise<Seeded> {
  const config = loadConfig({
    DATABASE_URL: storage.env.DATABASE_URL,
    DATA_DIR: storage.dataDir,
    ...SEEDING_SERVICE_ENV,
    JWT_SECRET,
    ACCESS_TOKEN_TTL,
  });
  const service = await startService(config, createLogger('warn'));
  try {
    const base = service.url;
    const register = async (n: number) => {
      const phone = `+8490${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
      const password = 'bench-password-1';
      await postJson(`${base}/auth/api/v1/register`, {
        username: `bench${n}x${Date.now().toString(36)}`,
        password,
        phone_number: phone,
        given_name: 'Bench',
        family_name: 'Viewer',
      });
      const outbox = fs
        .readFileSync(config.smsOutboxFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      await postJson(`${base}/auth/api/v1/verify-otp`, { phone_number: phone, otp: outbox.filter((e) => e.to === phone).at(-1).code });
      const login = await postJson(`${base}/auth/api/v1/login`, { phone_number: phone, password });
      return { token: login.data.AccessToken as string, userId: login.data.user.sub as string };
    };
    const viewer = await register(0);
    const others = [];
    for (let n = 1; n <= env.BENCH_VIEWERS; n++) others.push(await register(n));
    await seedContent(service.app.database.longRunning, items, viewer.userId);
    // Each other viewer follows 20 uploaders of its own choosing (the counters follow by trigger).
    for (const other of others) {
      await service.app.database.rows(sql`
        insert into follows (follower_id, following_id) select ${other.userId}, id from users where username like 'uploader%' order by random() limit 20`);
    }
    const ids = await service.app.database.rows<{ id: string }>(sql`
      select id from contents where status = 'completed' and deleted_at is null order by random() limit 8`);
    const uploaders = await service.app.database.rows<{ id: string }>(sql`select id from users where username like 'uploader%' order by username`);
    return { token: viewer.token, itemIds: ids.map((r) => r.id), viewerTokens: others.map((o) => o.token), uploaderIds: uploaders.map((r) => r.id) };
  } finally {
    await service.close();
  }
}

// --- targets --------------------------------------------------------------------------------

interface Target {
  /** Row label; the plain handler's row for the same request has the same key. */
  key: string;
  label: string;
  /** Paths requested in turn by every connection. */
  paths: string[];
  /** The bearer token of each path (same order), where it is not the viewer's. */
  tokens?: string[];
  /**
   * Each path once, handed out in turn across the connections (no warm-up, no probe: nothing is
   * read before): what a node answers to requests it has not seen. Non-2xx answers are counted.
   */
  once?: boolean;
  /**
   * With `once`: the paths as walks (one viewer's pages in order, as a client can only ask for a
   * page once it has the one before): each connection reads one walk to its end, then the next.
   */
  walks?: { path: string; token: string }[][];
}

const ALL_BASE = '/content/api/v1/all?search=can%20ho&unit_price=VND&amenities=pool';
const COMPLETED_BASE = '/content/api/v1/completed?latitude=10.78&longitude=106.70&zoom_level=13';

/** The three requests the plain handler also serves. */
function hotTargets(seeded: Seeded): Target[] {
  return [
    { key: 'me', label: 'GET /user/me', paths: ['/auth/api/v1/user/me'] },
    { key: 'detail', label: `GET /api/v1/content/:id (${seeded.itemIds.length} ids in turn)`, paths: seeded.itemIds.map((id) => `/api/v1/content/${id}`) },
    { key: 'feed', label: 'GET /feeds first page', paths: ['/content/api/v1/feeds'] },
  ];
}

/** The listings, the same request and 20 different ones in turn (so no cache holds every answer). */
function listingTargets(feedCursors: string[]): Target[] {
  const searches = ['can ho', 'biet thu', 'nha pho', 'riverside', 'studio'];
  const amenities = ['pool', 'gym', 'parking', 'garden'];
  const variedAll = Array.from(
    { length: 20 },
    (_, i) =>
      `/content/api/v1/all?search=${encodeURIComponent(searches[i % searches.length])}&unit_price=VND&amenities=${amenities[i % amenities.length]}&page=${i + 1}`,
  );
  // Viewports around the seeded cities, moved a little and at zoom 12-14.
  const variedCompleted = Array.from({ length: 20 }, (_, i) => {
    const city = CITIES[i % CITIES.length];
    const lat = (city.lat + ((i * 7) % 11) / 50 - 0.1).toFixed(3);
    const lng = (city.lng + ((i * 5) % 13) / 60 - 0.1).toFixed(3);
    return `/content/api/v1/completed?latitude=${lat}&longitude=${lng}&zoom_level=${12 + (i % 3)}`;
  });
  const variedFeed = feedCursors.map((c, i) => (i === 0 ? '/content/api/v1/feeds' : `/content/api/v1/feeds?cursor=${encodeURIComponent(c)}`));
  return [
    { key: 'feed-varied', label: `GET /feeds pages 1-${variedFeed.length} in turn`, paths: variedFeed },
    { key: 'all', label: 'GET /all search "can ho" + unit_price + amenities', paths: [ALL_BASE] },
    { key: 'all-varied', label: 'GET /all 5 searches x 4 amenities, pages 1-20 in turn', paths: variedAll },
    { key: 'completed', label: 'GET /completed viewport zoom 13', paths: [COMPLETED_BASE] },
    { key: 'completed-varied', label: 'GET /completed 20 viewports in turn', paths: variedCompleted },
  ];
}

/**
 * The reads no single request repeats, as their viewers: other users' profiles (64 pairs of a
 * viewer and an uploader in turn; and once, every viewer and uploader pair) and pages 2-10 of every
 * viewer's feed (in turn; and once, each page read once after the page cache was emptied, each
 * connection paging through one viewer's feed in order, then the next viewer's).
 */
async function manyUserTargets(base: string, seeded: Seeded, headers: Record<string, string>): Promise<Target[]> {
  const { viewerTokens: tokens, uploaderIds } = seeded;
  const pairs = Array.from({ length: 64 }, (_, i) => ({ token: tokens[i % tokens.length], userId: uploaderIds[(i * 37) % uploaderIds.length] }));
  const everyPair = uploaderIds.flatMap((userId) => tokens.map((token) => ({ token, userId })));
  const walks: { path: string; token: string }[][] = [];
  for (const token of tokens) {
    const cursors = await feedCursors(base, { authorization: `Bearer ${token}` }, 10);
    walks.push(cursors.slice(1).map((c) => ({ path: `/content/api/v1/feeds?cursor=${encodeURIComponent(c)}`, token })));
  }
  const deep = walks.flat();
  // Reading the cursors kept pages 1-9 of every feed: a like and its undoing clear the page
  // cache, as any change of a listed item does, so the pages read once are read from the database.
  const item = `${base}/api/v1/content/${seeded.itemIds[0]}/reactions`;
  for (const method of ['POST', 'DELETE']) {
    const res = await fetch(item, { method, headers });
    if (!res.ok) throw new Error(`${method} ${item} answered ${res.status}`);
  }
  const profilePath = (userId: string) => `/auth/api/v1/user/me?user_id=${userId}`;
  const feedLabel = `GET /feeds pages 2-10 of ${tokens.length} viewers`;
  return [
    {
      key: 'profiles-others',
      label: `GET /user/me?user_id=, ${tokens.length} viewers x ${uploaderIds.length} users, each pair once`,
      paths: everyPair.map((p) => profilePath(p.userId)),
      tokens: everyPair.map((p) => p.token),
      once: true,
    },
    {
      key: 'profiles-others',
      label: `GET /user/me?user_id=, ${pairs.length} pairs in turn`,
      paths: pairs.map((p) => profilePath(p.userId)),
      tokens: pairs.map((p) => p.token),
    },
    {
      key: 'feed-deep-many',
      label: `${feedLabel}, each page once (each connection pages through one viewer's feed, then the next)`,
      paths: deep.map((d) => d.path),
      tokens: deep.map((d) => d.token),
      once: true,
      walks: walks.filter((w) => w.length > 0),
    },
    { key: 'feed-deep-many', label: `${feedLabel} in turn`, paths: deep.map((d) => d.path), tokens: deep.map((d) => d.token) },
  ];
}

/** The cursors of the first `count` pages of the viewer's feed ('' for the first page). */
async function feedCursors(base: string, headers: Record<string, string>, count = 20): Promise<string[]> {
  const cursors = [''];
  while (cursors.length < count) {
    const cursor = cursors.at(-1)!;
    const res = await fetch(`${base}/content/api/v1/feeds${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`, { headers });
    const body = (await res.json()) as { data?: { next_cursor?: string | null } };
    if (!res.ok || !body.data?.next_cursor) break;
    cursors.push(body.data.next_cursor);
  }
  return cursors;
}

// --- load -----------------------------------------------------------------------------------

interface Figures {
  key: string;
  label: string;
  /** null: not measured (a request did not answer 200); `note` says why. */
  requestsPerSecond: number | null;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  note?: string;
}

/** The headers of the target's path `i`: the viewer's, or the token given for that path. */
const headersOf = (target: Target, i: number, headers: Record<string, string>) =>
  target.tokens ? { ...headers, authorization: `Bearer ${target.tokens[i]}` } : headers;

/** Every path answers 200 with its headers, or the first failure. */
async function probe(base: string, target: Target, headers: Record<string, string>): Promise<string | null> {
  for (const [i, p] of target.paths.entries()) {
    const res = await fetch(base + p, { headers: headersOf(target, i, headers) });
    if (res.status !== 200) return `${p} answered ${res.status}: ${(await res.text()).slice(0, 200)}`;
  }
  return null;
}

async function load(base: string, target: Target, headers: Record<string, string>, labelPrefix: string): Promise<Figures> {
  const label = `${labelPrefix}${target.label}`;
  if (target.once) return loadOnce(base, target, headers, label);
  const failure = await probe(base, target, headers);
  if (failure) {
    console.warn(`not measured: ${label}: ${failure}`);
    return { key: target.key, label, requestsPerSecond: null, p50: 0, p99: 0, non2xx: 0, errors: 0, note: failure };
  }
  const options = {
    url: base,
    connections,
    headers,
    requests: target.paths.map((p, i) => ({ method: 'GET' as const, path: p, headers: headersOf(target, i, headers) })),
  };
  if (warmup > 0) await autocannon({ ...options, duration: warmup });
  const r = await autocannon({ ...options, duration: seconds });
  const figures = {
    key: target.key,
    label,
    requestsPerSecond: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
  console.log(
    `  ${label}: ${figures.requestsPerSecond} req/s, p50 ${figures.p50} ms, p99 ${figures.p99} ms, non-2xx ${figures.non2xx}, errors ${figures.errors}`,
  );
  return figures;
}

/** Each of the target's paths once, one after another over all connections. */
async function loadOnce(base: string, target: Target, headers: Record<string, string>, label: string): Promise<Figures> {
  let next = 0;
  let nextWalk = 0;
  const setupRequest = (req: autocannon.Request, context: { walk?: number; step?: number }): autocannon.Request => {
    const { walks } = target;
    if (walks?.length) {
      // This connection's walk, or the next one once it is read to its end.
      if (context.walk === undefined || (context.step ?? 0) >= walks[context.walk].length) {
        context.walk = nextWalk++ % walks.length;
        context.step = 0;
      }
      const { path: walkPath, token } = walks[context.walk][context.step!++];
      return { ...req, method: 'GET', path: walkPath, headers: { ...headers, authorization: `Bearer ${token}` } };
    }
    const i = next++ % target.paths.length;
    return { ...req, method: 'GET', path: target.paths[i], headers: headersOf(target, i, headers) };
  };
  const r = await autocannon({ url: base, connections: Math.min(connections, target.paths.length), amount: target.paths.length, requests: [{ setupRequest }] });
  const figures = {
    key: target.key,
    label,
    requestsPerSecond: Math.round(r.requests.total / Math.max(r.duration, 0.001)),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
  console.log(
    `  ${label}: ${figures.requestsPerSecond} req/s, p50 ${figures.p50} ms, p99 ${figures.p99} ms, non-2xx ${figures.non2xx}, errors ${figures.errors}`,
  );
  return figures;
}

// --- the processes --------------------------------------------------------------------------

const started = startedChild;

function serviceEnv(storage: BenchStorage, readCache: 'on' | 'off'): Record<string, string> {
  return {
    ...storage.env,
    HOST: '127.0.0.1',
    DATA_DIR: storage.dataDir,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_SCALE: '100000',
    SCHEDULER_ENABLED: 'false',
    VIDEO_WORKERS: '0',
    JWT_SECRET,
    PUBLIC_BASE_URL,
    READ_CACHE: readCache,
  };
}

function plainEnv(storage: BenchStorage): Record<string, string> {
  const db: Record<string, string> = storage.mode === 'server' ? { DATABASE_URL: storage.env.DATABASE_URL } : { DATA_DIR: storage.dataDir };
  return { ...db, HOST: '127.0.0.1', JWT_SECRET, PUBLIC_BASE_URL };
}

const PLAIN_ARGS = (storage: BenchStorage, extra: string[] = []) => [...extra, '--import', 'tsx', 'bench/plain-handler.ts', '--storage', storage.mode];
const SERVICE_ARGS = (extra: string[] = []) => [...extra, '--import', 'tsx', 'main.ts'];

/**
 * The `data` of each hot request's first path, keys sorted, without the feed's cursor (it holds
 * the snapshot time): the plain handler must answer what the service answers.
 */
async function answersOf(base: string, seeded: Seeded, headers: Record<string, string>): Promise<Map<string, string>> {
  const sortedKeys = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sortedKeys)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .filter(([k]) => k !== 'next_cursor')
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([k, x]) => [k, sortedKeys(x)]),
          )
        : v;
  const answers = new Map<string, string>();
  for (const t of hotTargets(seeded)) {
    const body = (await (await fetch(base + t.paths[0], { headers })).json()) as { data?: unknown };
    answers.set(t.key, JSON.stringify(sortedKeys(body.data)));
  }
  return answers;
}

function compareAnswers(service: Map<string, string>, plain: Map<string, string>): void {
  for (const [key, expected] of service) {
    const got = plain.get(key) ?? '';
    if (got === expected) continue;
    let at = 0;
    while (at < expected.length && expected[at] === got[at]) at++;
    console.warn(
      `the plain handler's ${key} answer differs from the service's at character ${at}:\n  service: …${expected.slice(Math.max(0, at - 80), at + 80)}\n  plain:   …${got.slice(Math.max(0, at - 80), at + 80)}`,
    );
  }
}

let serviceAnswers = new Map<string, string>();

async function measureService(
  storage: BenchStorage,
  seeded: Seeded,
  readCache: 'on' | 'off',
  cursors: string[] | null,
): Promise<{ figures: Figures[]; cursors: string[] }> {
  const { child, base } = await started(SERVICE_ARGS(), serviceEnv(storage, readCache), '/readyz');
  try {
    const headers = { authorization: `Bearer ${seeded.token}` };
    if (readCache === 'off') serviceAnswers = await answersOf(base, seeded, headers);
    const pages = cursors ?? (await feedCursors(base, headers));
    const prefix = readCache === 'on' ? 'service: ' : 'service, READ_CACHE=off: ';
    const many = wanted('profiles-others') || wanted('feed-deep-many') ? await manyUserTargets(base, seeded, headers) : [];
    const figures: Figures[] = [];
    for (const t of [...hotTargets(seeded), ...listingTargets(pages), ...many].filter((t) => wanted(t.key))) figures.push(await load(base, t, headers, prefix));
    return { figures, cursors: pages };
  } finally {
    await stopChild(child);
  }
}

async function measurePlain(storage: BenchStorage, seeded: Seeded): Promise<Figures[]> {
  const { child, base } = await started(PLAIN_ARGS(storage), plainEnv(storage), '/ready');
  try {
    const headers = { authorization: `Bearer ${seeded.token}` };
    compareAnswers(serviceAnswers, await answersOf(base, seeded, headers));
    const figures: Figures[] = [];
    for (const t of hotTargets(seeded).filter((t) => wanted(t.key))) figures.push(await load(base, t, headers, 'plain handler: '));
    return figures;
  } finally {
    await stopChild(child);
  }
}

async function measureBare(): Promise<Figures> {
  const { child, base } = await started(['--input-type=module', '-e', BARE_UWS_HELLO], {}, '/');
  try {
    return await load(base, { key: 'bare', label: 'bare uWebSockets.js hello-world', paths: ['/'] }, {}, '');
  } finally {
    await stopChild(child);
  }
}

/** /user/me under load with --cpu-prof, in `dir`; answers the profile's summary. */
async function profileUserMe(
  label: string,
  args: (extra: string[]) => string[],
  childEnv: Record<string, string>,
  readyPath: string,
  dir: string,
  token: string,
): Promise<string> {
  fs.rmSync(dir, { recursive: true, force: true });
  const spawnedAt = Date.now();
  const { child, base } = await started(args(['--cpu-prof', `--cpu-prof-dir=${dir}`]), childEnv, readyPath);
  let loadFrom: number;
  let answered: number;
  try {
    const options = { url: base + '/auth/api/v1/user/me', connections, headers: { authorization: `Bearer ${token}` } };
    if (warmup > 0) await autocannon({ ...options, duration: warmup });
    loadFrom = Date.now() - spawnedAt;
    answered = (await autocannon({ ...options, duration: seconds })).requests.total;
  } finally {
    await stopChild(child);
  }
  // CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile: thread 0 is the main thread (the one serving HTTP).
  const file = fs
    .readdirSync(dir)
    .filter((f) => /\.0\.\d+\.cpuprofile$/.test(f))
    .map((f) => path.join(dir, f))[0];
  if (!file) return `### ${label}\n\nno profile written in ${dir}\n`;
  // The start-up (loading and compiling modules, migrations) and the warm-up are left out: only the load counts.
  const summary = summariseProfile(file, { skipMs: loadFrom });
  const busyMs = summary.totalMs - summary.idleMs;
  const perRequest = `${answered} requests in ${seconds} s (${Math.round(answered / seconds)} req/s); ${((busyMs / Math.max(answered, 1)) * 1000).toFixed(0)} µs of main-thread CPU per request`;
  return formatSummary(`${label} (${file}, first ${(loadFrom / 1000).toFixed(1)} s of start-up and warm-up left out)`, summary).replace(
    '\n\n',
    `\n\n${perRequest}\n\n`,
  );
}

// --- the run --------------------------------------------------------------------------------

function table(title: string, rows: Figures[]): string {
  const bare = rows.find((r) => r.key === 'bare')?.requestsPerSecond ?? null;
  const plain = new Map(rows.filter((r) => r.label.startsWith('plain handler')).map((r) => [r.key, r.requestsPerSecond]));
  const ratio = (a: number | null, b: number | null | undefined) => (a !== null && b ? `${(a / b).toFixed(2)}×` : '–');
  const lines = [`### ${title}`, '', '| target | req/s | p50 ms | p99 ms | non-2xx | × bare uWS | × plain handler |', '|---|---:|---:|---:|---:|---:|---:|'];
  for (const r of rows) {
    if (r.requestsPerSecond === null) {
      lines.push(`| ${r.label} | not measured: ${r.note?.replace(/\|/g, '\\|')} | | | | | |`);
      continue;
    }
    if (r.requestsPerSecond === 0) {
      lines.push(`| ${r.label} | 0: no answer completed within the run | | | ${r.non2xx} | | |`);
      continue;
    }
    const non2xx = r.errors ? `${r.non2xx} (+${r.errors} errors)` : String(r.non2xx);
    const vsPlain = r.label.startsWith('service') ? ratio(r.requestsPerSecond, plain.get(r.key)) : '–';
    lines.push(
      `| ${r.label} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${non2xx} | ${r.key === 'bare' ? '1.00×' : ratio(r.requestsPerSecond, bare)} | ${vsPlain} |`,
    );
  }
  return lines.join('\n');
}

async function runOne(mode: 'embedded' | 'server', items: number): Promise<{ table: string; profiles: string[] }> {
  console.log(`\n== ${mode}, ${items} items ==`);
  // Other work on the machine skews every figure: the load average says how busy it was.
  const loadBefore = os.loadavg()[0];
  const storage = await openStorage(mode);
  try {
    const seeded = await seed(storage, items);
    const rows: Figures[] = [];
    if (wanted('bare')) rows.push(await measureBare());
    const on = await measureService(storage, seeded, 'on', null);
    const off = await measureService(storage, seeded, 'off', on.cursors);
    // In embedded mode the plain handler opens the data directory the service has now closed.
    const plain = ['me', 'detail', 'feed'].some(wanted) ? await measurePlain(storage, seeded) : [];
    rows.push(...plain, ...on.figures, ...off.figures);
    const profiles: string[] = [];
    if (env.BENCH_PROFILE_DIR && mode === 'server') {
      const dir = path.resolve(env.BENCH_PROFILE_DIR);
      profiles.push(
        await profileUserMe(
          `service, READ_CACHE=off, GET /user/me, server mode, ${items} items`,
          SERVICE_ARGS,
          serviceEnv(storage, 'off'),
          '/readyz',
          path.join(dir, `service-${items}`),
          seeded.token,
        ),
      );
      profiles.push(
        await profileUserMe(
          `plain handler, GET /user/me, server mode, ${items} items`,
          (extra) => PLAIN_ARGS(storage, extra),
          plainEnv(storage),
          '/ready',
          path.join(dir, `plain-${items}`),
          seeded.token,
        ),
      );
    }
    const title = `${mode} mode, ${items.toLocaleString('en')} items (1-min load average ${loadBefore.toFixed(1)} before, ${os.loadavg()[0].toFixed(1)} after)`;
    return { table: table(title, rows), profiles };
  } finally {
    for (const child of benchChildren) child.kill('SIGKILL');
    await storage.cleanUp();
  }
}

const tables: string[] = [];
const profiles: string[] = [];
for (const mode of env.BENCH_MODES) {
  for (const size of env.BENCH_SIZES) {
    const result = await runOne(mode, size);
    tables.push(result.table);
    profiles.push(...result.profiles);
    console.log(`\n${result.table}\n`);
  }
}
const cpus = os.cpus();
console.log(
  `\n${connections} connections, ${seconds} s per target after ${warmup} s of warm-up; ${cpus.length} × ${cpus[0]?.model ?? 'CPU'}, Node ${process.version}\n`,
);
console.log(tables.join('\n\n'));
if (profiles.length) console.log(`\n${profiles.join('\n')}`);
