// The reference that bench/read-path.ts measures the service against: the three hottest reads
// written the plain way, `node:http` + a driver + `jose`, with no framework, no pipeline and no
// cache. It runs the same statements the service runs when it does not cache (the session check of
// SessionRepository.findForCaller, the profile of UserRepository.findProfile, the item of
// ContentRepository.findLive, the feed snapshot and buckets of ContentListingRepository), written
// out here as statement text, and answers in the same envelope and shapes:
//   GET /auth/api/v1/user/me            token, session check, profile
//   GET /api/v1/content/:id             token (when sent), session check, item
//   GET /content/api/v1/feeds           token, session check, snapshot, buckets (first page only)
//   GET /ready                          200 once the database answers
// Run as a child process:
//   node --import tsx bench/plain-handler.ts --storage server     (DATABASE_URL: a pg Pool of 10,
//                                                                  named prepared statements)
//   node --import tsx bench/plain-handler.ts --storage embedded   (DATA_DIR: PGlite in this process on
//                                                                  DATA_DIR/pgdata, once the service
//                                                                  that owns it has stopped; on a
//                                                                  thread of its own unless
//                                                                  PGLITE_THREAD=main, as the service)
// Env: PORT, HOST (127.0.0.1), JWT_SECRET (the service's), PUBLIC_BASE_URL (for media URLs),
// PGLITE_THREAD, PGLITE_SHARED_BUFFERS (as the service reads them), PLAIN_STATEMENTS (`named`;
// `unnamed` parses every statement again, as the service's driver calls do).
// Role grants are read at start and every 5 s on a timer, as the service caches them.
import http from 'node:http';
import path from 'node:path';
import { webcrypto } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { jwtVerify, errors as joseErrors } from 'jose';
import { z } from 'zod';
import { DEFAULT_SETTINGS } from '../src/settings/schemas.js';

const env = z
  .object({
    PORT: z.coerce.number().int().min(1).max(65535),
    HOST: z.string().min(1).default('127.0.0.1'),
    JWT_SECRET: z.string().min(32),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//)
      .optional(),
    DATA_DIR: z.string().min(1).optional(),
    PUBLIC_BASE_URL: z.url().optional(),
    PGLITE_SHARED_BUFFERS: z
      .string()
      .regex(/^[1-9]\d{0,5}(kB|MB|GB)$/)
      .default('32MB'),
    PGLITE_THREAD: z.enum(['worker', 'main']).default('worker'),
    /** `unnamed`: send each statement's text every time, as the service does (to measure what naming saves). */
    PLAIN_STATEMENTS: z.enum(['named', 'unnamed']).default('named'),
  })
  .parse(process.env);
const storageArg = process.argv.indexOf('--storage');
const storage = z.enum(['server', 'embedded']).parse(storageArg >= 0 ? process.argv[storageArg + 1] : 'server');
const publicBaseUrl = (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');

// The token the service signs (src/auth/tokens.ts): HS256, this issuer and audience, typ access.
// The secret is imported as a key once: given the raw bytes, jose imports them on every verification.
const key = await webcrypto.subtle.importKey('raw', new TextEncoder().encode(env.JWT_SECRET), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
const ISSUER = 'real-estate-video-service';
const AUDIENCE = 'api';

type Row = Record<string, any>;
/** One statement: a name (prepared once per connection in server mode), its text and values. */
type Run = (name: string, text: string, values: unknown[]) => Promise<Row[]>;

async function openServer(url: string): Promise<Run> {
  const pg = (await import('pg')).default;
  // int8 (count(*)) as a number, as the service reads it.
  pg.types.setTypeParser(20, (v: string) => Number(v));
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  if (env.PLAIN_STATEMENTS === 'unnamed') return async (_name, text, values) => (await pool.query(text, values)).rows;
  return async (name, text, values) => (await pool.query({ name, text, values })).rows;
}

// PGlite on DATA_DIR/pgdata with the extensions and buffer size the service opens it with.
const PGLITE_EXTENSIONS = ['pg_trgm', 'unaccent', 'cube', 'earthdistance'];
const pgliteOptions = (dataDir: string) => ({
  pgdata: path.join(path.resolve(dataDir), 'pgdata'),
  extensions: PGLITE_EXTENSIONS,
  startParams: ['-c', `shared_buffers=${env.PGLITE_SHARED_BUFFERS}`],
});

async function openPglite(options: ReturnType<typeof pgliteOptions>) {
  const { PGlite } = await import('@electric-sql/pglite');
  const extensions: Record<string, any> = {};
  for (const name of options.extensions) extensions[name] = (await import(`@electric-sql/pglite/contrib/${name}`))[name];
  return PGlite.create({ dataDir: options.pgdata, extensions, startParams: [...PGlite.defaultStartParams, ...options.startParams] });
}

// The database thread (PGLITE_THREAD=worker), plain JavaScript so that it loads without a
// TypeScript loader: opens PGlite as openPglite does, runs each statement it is sent, answers rows.
const DATABASE_THREAD = `
const { parentPort, workerData: o } = require('node:worker_threads');
(async () => {
  const { PGlite } = await import('@electric-sql/pglite');
  const extensions = {};
  for (const name of o.extensions) extensions[name] = (await import('@electric-sql/pglite/contrib/' + name))[name];
  const db = await PGlite.create({ dataDir: o.pgdata, extensions, startParams: [...PGlite.defaultStartParams, ...o.startParams] });
  parentPort.on('message', (m) => {
    if (m.close) return void db.close().finally(() => parentPort.postMessage({ closed: true }));
    db.query(m.text, m.values).then(
      (r) => parentPort.postMessage({ id: m.id, rows: r.rows }),
      (err) => parentPort.postMessage({ id: m.id, error: String(err && err.message) }),
    );
  });
  parentPort.postMessage({ ready: true });
})();
`;

/**
 * Embedded mode, as the service arranges it (PGLITE_THREAD): PGlite on a thread of its own, so
 * the event loop serving HTTP stays free while a statement runs, or on the main thread.
 */
async function openEmbedded(dataDir: string): Promise<Run> {
  if (env.PGLITE_THREAD === 'main') {
    const db = await openPglite(pgliteOptions(dataDir));
    process.once('SIGTERM', () => void db.close().finally(() => process.exit(0)));
    return async (_name, text, values) => (await db.query<Row>(text, values)).rows;
  }
  const worker = new Worker(DATABASE_THREAD, { eval: true, workerData: pgliteOptions(dataDir) });
  const pending = new Map<number, { resolve: (rows: Row[]) => void; reject: (err: Error) => void }>();
  let nextId = 1;
  await new Promise<void>((ready, failed) => {
    worker.once('error', failed);
    worker.on('message', (m: { ready?: true; closed?: true; id?: number; rows?: Row[]; error?: string }) => {
      if (m.ready) return ready();
      if (m.closed) return process.exit(0);
      const waiter = pending.get(m.id!);
      pending.delete(m.id!);
      if (m.error !== undefined) waiter?.reject(new Error(m.error));
      else waiter?.resolve(m.rows!);
    });
  });
  process.once('SIGTERM', () => worker.postMessage({ close: true }));
  return (_name, text, values) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, text, values });
    });
}

// --- the statements -------------------------------------------------------------------------

// The user's privacy.session_timeout in minutes for session row `s` ($3: the default), read once,
// and the seconds since the session was last seen: the service's session check; the idle
// arithmetic on them is done by the caller (sessionState below), as the service does.
const timeout = `coalesce((select case when jsonb_typeof(us.overrides->'privacy.session_timeout') = 'number'
  then (us.overrides->>'privacy.session_timeout')::int end from user_settings us where us.user_id = s.user_id), $3::int)`;
const SESSION_CHECK = `select u.role, u.username, (s.revoked_at is not null) as revoked, s.ended_idle,
    extract(epoch from (now() - s.last_seen_at))::float8 as idle_seconds, t.minutes as timeout_minutes
  from sessions s join users u on u.id = s.user_id cross join lateral (select ${timeout} as minutes) t
  where s.id = $1 and s.user_id = $2`;

/** idle_expired and touch_due from the session check's row. */
function sessionState(row: { idle_seconds: number; timeout_minutes: number }): { idle_expired: boolean; touch_due: boolean } {
  const touchEvery = Math.min(60, row.timeout_minutes * 15);
  return { idle_expired: row.idle_seconds > row.timeout_minutes * 60 + touchEvery, touch_due: row.idle_seconds > touchEvery };
}
const SESSION_TOUCH = 'update sessions set last_seen_at = now() where id = $1';
const ROLE_GRANTS = `select r.name as role, p.name as permission from roles r
  join role_permissions rp on rp.role_id = r.id join permissions p on p.id = rp.permission_id
  where r.is_active and p.is_active`;
const PROFILE = `select id, username, email, email_verified, phone_number, phone_verified, given_name, family_name, picture, role,
    (select count(*) from follows where following_id = u.id)::int as followers,
    (select count(*) from follows where follower_id = u.id)::int as following,
    exists (select 1 from follows where follower_id = $2 and following_id = u.id) as viewer_follows
  from users u where id = $1`;
const ITEM_COLUMNS = `c.id, c.uploader_id, c.status, c.price, c.unit_price, c.area, c.unit_area, c.price_per_area,
  c.latitude, c.longitude, c.hash_tags, c.profit_rate, c.amenities, c.real_estate_info,
  c.is_multi_language, c.content_info, c.video, c.images, c.reaction_count, c.comment_count, c.created_at, c.updated_at,
  u.given_name as uploader_given_name, u.family_name as uploader_family_name,
  u.picture as uploader_picture, u.phone_number as uploader_phone`;
const ITEM = `select ${ITEM_COLUMNS} from contents c join users u on u.id = c.uploader_id where c.id = $1 and c.deleted_at is null`;
const STAMP = `'YYYY-MM-DD"T"HH24:MI:SS.US'`;
const FEED_SNAPSHOT = `select to_char(now() at time zone 'UTC', ${STAMP}) as t`;
// The feed's three buckets as of the snapshot $1 for the caller $2 (see src/content/feed.ts):
// followed uploaders; fresh ($3 window) and popular ($4 reactions); the rest. No cursor: page one.
const at = `($1::timestamp at time zone 'UTC')`;
const followed = `c.uploader_id in (select f.following_id from follows f where f.follower_id = $2 and f.created_at <= ${at})`;
const popular = `(c.created_at > ${at} - $3::interval
  and (select count(*) from content_reactions r where r.content_id = c.id and r.created_at <= ${at}) >= $4)`;
const bucketText = (condition: string, limitParam: string) => `select ${ITEM_COLUMNS},
    to_char(c.created_at at time zone 'UTC', ${STAMP}) as created_key
  from contents c join users u on u.id = c.uploader_id
  where c.deleted_at is null and c.status = 'completed' and c.created_at <= ${at} and c.uploader_id <> $2 and ${condition}
  order by c.created_at desc, c.id desc limit ${limitParam}`;
const FEED_BUCKETS = [bucketText(followed, '$3'), bucketText(`not ${followed} and ${popular}`, '$5'), bucketText(`not ${followed} and not ${popular}`, '$5')];
const FRESH_WINDOW = '7 days';
const POPULAR_MIN_REACTIONS = 2;

// --- answers --------------------------------------------------------------------------------

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const mediaUrl = (p: string | null | undefined): string | null =>
  p ? `${publicBaseUrl}/media/${p.replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/')}` : null;
const fullName = (given: string, family: string) => [given, family].filter(Boolean).join(' ');
const LANGUAGES = ['en', 'vi', 'ko'] as const;
type Language = (typeof LANGUAGES)[number];
const languageOf = (header: string | string[] | undefined): Language => {
  const wanted = String(header ?? '')
    .trim()
    .toLowerCase();
  return (LANGUAGES as readonly string[]).includes(wanted) ? (wanted as Language) : 'en';
};

let grants = new Map<string, Set<string>>();

async function loadGrants(run: Run): Promise<void> {
  const next = new Map<string, Set<string>>();
  for (const g of await run('plain_role_grants', ROLE_GRANTS, [])) {
    if (!next.has(g.role)) next.set(g.role, new Set());
    next.get(g.role)!.add(g.permission);
  }
  grants = next;
}

interface Caller {
  userId: string;
  role: string;
}

const claimsSchema = z.object({ sub: z.string(), sid: z.string(), typ: z.literal('access') });

async function callerOf(run: Run, authorization: string | undefined, required: boolean): Promise<Caller | null> {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (!token) {
    if (required) throw new Refusal(401, 'A bearer access token is required');
    return null;
  }
  let claims: z.infer<typeof claimsSchema>;
  try {
    const { payload } = await jwtVerify(token, key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
    claims = claimsSchema.parse(payload);
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw new Refusal(401, 'Access token expired');
    throw new Refusal(401, 'Invalid access token');
  }
  const [s] = await run('plain_session_check', SESSION_CHECK, [claims.sid, claims.sub, DEFAULT_SETTINGS.privacy.session_timeout]);
  if (!s || s.revoked) throw new Refusal(401, 'Session has ended');
  const state = sessionState(s as unknown as { idle_seconds: number; timeout_minutes: number });
  if (state.idle_expired) throw new Refusal(401, 'Session has ended');
  if (state.touch_due) void run('plain_session_touch', SESSION_TOUCH, [claims.sid]).catch(() => undefined);
  return { userId: claims.sub, role: s.role };
}

const can = (caller: Caller | null, permission: string) => !!caller && (grants.get(caller.role)?.has(permission) ?? false);

async function profile(run: Run, caller: Caller) {
  if (!can(caller, 'read:profile')) throw new Refusal(403, 'Permission read:profile is required');
  const [u] = await run('plain_profile', PROFILE, [caller.userId, caller.userId]);
  if (!u) throw new Refusal(404, 'No user with this id');
  return {
    sub: u.id,
    username: u.username,
    email: u.email,
    email_verified: u.email_verified,
    phone_number: u.phone_number,
    phone_number_verified: u.phone_verified,
    name: fullName(u.given_name, u.family_name),
    given_name: u.given_name,
    family_name: u.family_name,
    picture: mediaUrl(u.picture),
    role: u.role,
    follower_number: u.followers,
    following_number: u.following,
    is_following: false,
  };
}

const idSchema = z.uuid();

async function detail(run: Run, caller: Caller | null, id: string) {
  if (!idSchema.safeParse(id).success) throw new Refusal(400, 'id must be a uuid');
  const [r] = await run('plain_item', ITEM, [id]);
  const mayView = r && (r.status === 'completed' || r.uploader_id === caller?.userId || can(caller, 'update:any_content'));
  if (!mayView) throw new Refusal(404, 'Content not found');
  const blocks = new Map<string, Row>(r.content_info.map((b: Row) => [b.lang, b]));
  return {
    id: r.id,
    price: r.price,
    unit_price: r.unit_price,
    price_per_area: r.price_per_area,
    area: r.area,
    unit_area: r.unit_area,
    geo: r.latitude === null || r.longitude === null ? null : { lat: r.latitude, long: r.longitude },
    hash_tags: r.hash_tags,
    profit_rate: r.profit_rate,
    amenities: r.amenities,
    real_estate_info: {
      legal_certificates: r.real_estate_info.legal_certificates ?? null,
      apartment_type: r.real_estate_info.apartment_type ?? null,
      project_status: r.real_estate_info.project_status ?? null,
    },
    is_multi_language: r.is_multi_language,
    video: {
      thumbnail_url: mediaUrl(r.video.thumbnail_path),
      url: mediaUrl(r.video.playlist_path),
      duration: r.video.duration,
      resolution: r.video.resolution,
      status: r.video.status,
    },
    images: r.images.map((i: Row) => ({ id: i.id, name: i.name, url: i.path ? mediaUrl(i.path) : (i.url ?? null) })),
    reaction_count: r.reaction_count,
    comment_count: r.comment_count,
    status: r.status,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
    content_info: Object.fromEntries(
      LANGUAGES.map((lang) => {
        const b = blocks.get(lang);
        return [
          lang,
          b
            ? {
                project_name: b.project_name,
                description: b.description,
                address: b.address,
                legal_certificates: b.legal_certificates,
                apartment_type: b.apartment_type,
                project_status: b.project_status,
                extra_description: b.extra_description,
              }
            : null,
        ];
      }),
    ),
    uploader: { name: fullName(r.uploader_given_name, r.uploader_family_name), phone: can(caller, 'read:contact') ? r.uploader_phone : null },
  };
}

const feedQuery = z.object({
  per_page: z.coerce.number().int().min(1).max(100).default(10),
  cursor: z.never({ message: 'this reference serves the first page only' }).optional(),
});

async function feed(run: Run, caller: Caller, search: URLSearchParams, lang: Language) {
  const parsed = feedQuery.safeParse(Object.fromEntries(search));
  if (!parsed.success) throw new Refusal(400, parsed.error.issues[0].message);
  const perPage = parsed.data.per_page;
  const [{ t: snapshot }] = await run('plain_feed_snapshot', FEED_SNAPSHOT, []);
  const rows: { row: Row; bucket: number }[] = [];
  for (let bucket = 0; bucket < FEED_BUCKETS.length && rows.length <= perPage; bucket++) {
    const limit = perPage + 1 - rows.length;
    const values = bucket === 0 ? [snapshot, caller.userId, limit] : [snapshot, caller.userId, FRESH_WINDOW, POPULAR_MIN_REACTIONS, limit];
    for (const row of await run(`plain_feed_bucket_${bucket}`, FEED_BUCKETS[bucket], values)) rows.push({ row, bucket });
  }
  const hasMore = rows.length > perPage;
  const page = rows.slice(0, perPage);
  const last = page.at(-1);
  return {
    items: page.map(({ row: r }) => {
      const blocks: Row[] = r.content_info;
      const block = blocks.find((b) => b.lang === lang) ?? blocks.find((b) => b.lang === 'en') ?? blocks[0];
      return {
        id: r.id,
        price: r.price,
        unit_price: r.unit_price,
        area: r.area,
        unit_area: r.unit_area,
        video: { thumbnail_url: mediaUrl(r.video.thumbnail_path), url: mediaUrl(r.video.playlist_path) },
        content_info: block ? [{ ...block, location: block.address }] : [],
        uploader: { name: fullName(r.uploader_given_name, r.uploader_family_name), avatar: mediaUrl(r.uploader_picture) },
        reaction_count: r.reaction_count,
        comment_count: r.comment_count,
        created_at: r.created_at.toISOString(),
      };
    }),
    next_cursor:
      hasMore && last
        ? Buffer.from(JSON.stringify({ v: 1, t: snapshot, b: last.bucket, c: last.row.created_key, i: last.row.id })).toString('base64url')
        : null,
    has_more: hasMore,
  };
}

// --- the server -----------------------------------------------------------------------------

let run: Run;

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function answer(req: http.IncomingMessage): Promise<unknown> {
  const url = new URL(req.url ?? '/', 'http://plain');
  const auth = req.headers.authorization;
  if (req.method !== 'GET') throw new Refusal(405, 'GET only');
  if (url.pathname === '/auth/api/v1/user/me') return profile(run, (await callerOf(run, auth, true))!);
  if (url.pathname === '/content/api/v1/feeds') {
    return feed(run, (await callerOf(run, auth, true))!, url.searchParams, languageOf(req.headers['x-language']));
  }
  const item = /^\/api\/v1\/content\/([^/]+)$/.exec(url.pathname);
  if (item) return detail(run, await callerOf(run, auth, false), decodeURIComponent(item[1]));
  if (url.pathname === '/ready') {
    await run('plain_ready', 'select 1 as ok', []);
    return { ready: true };
  }
  throw new Refusal(404, 'Not found');
}

async function serve(): Promise<void> {
  run = storage === 'server' ? await openServer(z.string().parse(env.DATABASE_URL)) : await openEmbedded(z.string().parse(env.DATA_DIR));
  await loadGrants(run);
  setInterval(() => void loadGrants(run).catch(() => undefined), 5_000).unref();
  const server = http.createServer((req, res) => {
    answer(req).then(
      (data) => send(res, 200, { success: true, message: 'OK', data }),
      (err) => send(res, err instanceof Refusal ? err.status : 500, { success: false, message: err instanceof Refusal ? err.message : 'Internal error' }),
    );
  });
  // Keep-alive connections from the load generator are kept open for the whole run.
  server.keepAliveTimeout = 60_000;
  server.listen(env.PORT, env.HOST);
  if (storage === 'server') {
    process.once('SIGTERM', () => {
      server.close(() => process.exit(0));
      server.closeAllConnections();
    });
  }
}

await serve();
