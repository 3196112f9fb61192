// Every environment variable the service reads, parsed and validated once at start-up, and only
// here: nothing else in the service reads process.env. A bad value stops the start with one line
// naming the variable (see loadConfig). The Config is frozen: what the services are built from
// cannot change under them (withPublicBaseUrl derives a new one before anything is built).
import path from 'node:path';
import { z } from 'zod';

const booleanFlag = z.enum(['0', '1', 'true', 'false', 'yes', 'no']).transform((v) => v === '1' || v === 'true' || v === 'yes');

const positiveInt = z.coerce.number().int().positive();

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATA_DIR: z.string().min(1).default('./data'),
  MEDIA_DIR: z.string().min(1).optional(),
  PUBLIC_BASE_URL: z.url().optional(),
  /** Where media lives (CONTRACT §27): `local` (MEDIA_DIR) or `s3` (an S3-compatible bucket, the S3_* settings). */
  MEDIA_STORAGE: z.enum(['local', 's3']).default('local'),
  /** The S3 API's address (MinIO, Ceph, R2, …); unset: AWS's own for S3_REGION. */
  S3_ENDPOINT: z.url().optional(),
  S3_REGION: z.string().min(1).max(64).default('us-east-1'),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name')
    .optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).max(256).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).max(256).optional(),
  /** Path-style addresses (endpoint/bucket/key), which most self-hosted S3 servers need. */
  S3_FORCE_PATH_STYLE: booleanFlag.default(false),
  /**
   * A CDN or the bucket's public address: public media URLs point there instead of
   * PUBLIC_BASE_URL/media, and private files (documents, exports) get short-lived signed URLs.
   */
  MEDIA_PUBLIC_BASE_URL: z.url().optional(),
  /** Lifetime of the signed URLs of private media files. */
  MEDIA_SIGNED_URL_SECONDS: z.coerce.number().int().min(30).max(3600).default(300),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  DATABASE_POOL_SIZE: positiveInt.default(10),
  /**
   * Server mode: the longest a node waits for a pooled connection, and then for the answer to one
   * statement, before it gives up (answered 503; the connection is destroyed). Both together stay
   * under CONTRACT §14's 5 s.
   */
  DATABASE_TIMEOUT_MS: z.coerce.number().int().min(100).max(2_500).default(2_000),
  /** Embedded mode: PostgreSQL's shared_buffers inside PGlite (its default 128MB is most of an idle node's memory). */
  PGLITE_SHARED_BUFFERS: z
    .string()
    .regex(/^([1-9]\d{0,5})(kB|MB|GB)$/, 'must be a size like 32MB')
    .default('32MB'),
  /**
   * Embedded mode: where PGlite runs. `worker`: on a worker thread, so the event loop serving
   * sockets stays free while a query executes; `main`: on the event loop itself.
   */
  PGLITE_THREAD: z.enum(['worker', 'main']).default('worker'),
  /** The per-node read caches (sessions, roles, profiles, items, hot pages): `off` reads the database every time. */
  READ_CACHE: z.enum(['on', 'off']).default('on'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .optional(),
  REDIS_PREFIX: z.string().min(1).max(64).default('revs:'),
  /** Seconds after its last heartbeat that a node's chat users count as offline (a node that died). */
  PRESENCE_TTL_SECONDS: z.coerce.number().int().min(3).max(600).default(30),
  /**
   * How Socket.IO events cross nodes (with REDIS_URL): `streams` (Redis streams; connection state
   * recovery works across nodes), `pubsub` (plain pub/sub, every node gets every event) or
   * `sharded` (sharded pub/sub, room events reach only nodes with members; no recovery).
   */
  REALTIME_ADAPTER: z.enum(['rooms', 'streams', 'pubsub', 'sharded']).default('rooms'),
  /**
   * `on`: a Socket.IO broadcast to one room without exceptions is encoded once and published to
   * the room's uWebSockets.js topic (uWS copies it to every websocket natively); `off`: written
   * socket by socket (realtime/transport/uws-binding.ts).
   */
  REALTIME_NATIVE_PUBLISH: z.enum(['on', 'off']).default('on'),
  /**
   * With `REALTIME_ADAPTER=rooms`: how many cross-node events a node keeps while Redis is away
   * (CONTRACT §14). Past it the oldest are dropped and, when Redis returns, the other nodes'
   * sockets in the rooms concerned are disconnected so their clients re-sync (realtime/transport/rooms-adapter.ts).
   */
  REALTIME_OUTBOX_MAX_EVENTS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  ACCESS_TOKEN_TTL: positiveInt.default(900),
  REFRESH_TOKEN_TTL: positiveInt.default(30 * 24 * 3600),
  BCRYPT_ROUNDS: z.coerce.number().int().min(4).max(15).default(10),
  OTP_TTL: positiveInt.default(300),
  /** `outbox`: JSON lines in SMS_OUTBOX_FILE; `http`: POSTed to the gateway at SMS_HTTP_URL (src/sms/provider.ts). */
  SMS_PROVIDER: z.enum(['outbox', 'http']).default('outbox'),
  SMS_OUTBOX_FILE: z.string().min(1).optional(),
  SMS_HTTP_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Bearer token of the SMS gateway (SMS_PROVIDER=http). Never logged. */
  SMS_HTTP_TOKEN: z.string().min(8, 'must be at least 8 characters').max(4096).optional(),
  DEFAULT_PHONE_REGION: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be a two-letter country code')
    .default('VN'),
  ADMIN_PHONE_NUMBER: z.string().min(1).optional(),
  ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  RATE_LIMIT_SCALE: z.coerce.number().positive('must be greater than 0 (limits cannot be switched off)').default(1),
  /** Distinct reporters with verified phones whose open reports hold a content item for review (CONTRACT §21). */
  REPORT_HOLD_THRESHOLD: z.coerce.number().int().min(1).max(1000).default(5),
  TRUST_PROXY: booleanFlag.default(false),
  MAX_JSON_BODY_BYTES: positiveInt.default(1024 * 1024),
  MAX_IMAGE_BYTES: positiveInt.default(10 * 1024 * 1024),
  MAX_VIDEO_BYTES: positiveInt.default(500 * 1024 * 1024),
  MAX_DOCUMENT_BYTES: positiveInt.default(20 * 1024 * 1024),
  CORS_ORIGINS: z.string().default('*'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  FFMPEG_PATH: z.string().min(1).optional(),
  FFPROBE_PATH: z.string().min(1).optional(),
  VIDEO_WORKERS: z.coerce.number().int().min(0).max(16).default(1),
  JOB_LEASE_SECONDS: positiveInt.default(60),
  /** Longest video accepted, in seconds (CONTRACT §19). */
  MAX_VIDEO_SECONDS: positiveInt.default(600),
  /** Wall-clock limit of one processing run; past it ffmpeg is killed and the job ends failed. */
  VIDEO_JOB_TIMEOUT_SECONDS: positiveInt.default(1800),
  /** Seconds an unfinished resumable (tus) upload lives after its creation; then its bytes are removed (CONTRACT §24). */
  RESUMABLE_UPLOAD_TTL: positiveInt.default(86_400),
  /** Largest image decoded, in pixels (width x height), for every stored image. */
  MAX_IMAGE_PIXELS: positiveInt.default(25_000_000),
  /** One-time codes sent to one phone number per day, on top of the per-hour limits. */
  OTP_DAILY_LIMIT: positiveInt.default(10),
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000),
  /**
   * Test only: the length, in seconds, of one minute of privacy.session_timeout (default 60), so a
   * test can watch a one-minute timeout end a session in a few seconds. Any other value than 60 is
   * refused unless NODE_ENV=test.
   */
  SESSION_TIMEOUT_MINUTE_SECONDS: z.coerce.number().int().min(2).max(60).default(60),
  /** Test only: a pause after each step of an account erasure (ms), so a test can kill a node halfway. Refused unless NODE_ENV=test. */
  ERASURE_STEP_PAUSE_MS: z.coerce.number().int().min(0).max(10_000).default(0),
  PAYMENT_PROVIDER: z.enum(['sandbox']).default('sandbox'),
  /** Bearer token that GET /metrics requires; unset: /metrics answers loopback clients only. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').max(256).optional(),
  /** Start even when uWebSockets.js runs its slow JavaScript fallback instead of its native binary. */
  ALLOW_SLOW_TRANSPORT: booleanFlag.default(false),
  /**
   * The uWebSockets.js package's own switch, read by the package when it loads (it then runs its
   * JavaScript fallback): read here too, as the package reads it, so a refusal can name it.
   */
  UWS_USE_FALLBACK: z
    .string()
    .optional()
    .transform((v) => v === 'true' || v === 'True' || v === 'TRUE' || v === '1'),
  SCHEDULER_ENABLED: booleanFlag.default(true),
  /**
   * The listing index's snapshots (docs/search.md, "Start from a snapshot"): a node starts from
   * the newest and catches up; one node writes a new one when the newest is older than this many
   * minutes. 0: no snapshot is read or written (every start reads every listed row).
   */
  LISTING_SNAPSHOT_MINUTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(24 * 60)
    .default(30),
  /** Key material for two-factor secrets; unset: a random key kept in service_secrets. */
  TWO_FACTOR_ENCRYPTION_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  TIKTOK_CLIENT_KEY: z.string().default('sandbox-tiktok-client'),
  TIKTOK_CLIENT_SECRET: z.string().default('sandbox-tiktok-secret'),
  TIKTOK_AUTH_URL: z.url().default('https://www.tiktok.com/v2/auth/authorize/'),
  TIKTOK_API_BASE_URL: z.url().default('https://open.tiktokapis.com'),
  YOUTUBE_CLIENT_ID: z.string().default('sandbox-youtube-client'),
  YOUTUBE_CLIENT_SECRET: z.string().default('sandbox-youtube-secret'),
  YOUTUBE_AUTH_URL: z.url().default('https://accounts.google.com/o/oauth2/v2/auth'),
  YOUTUBE_TOKEN_URL: z.url().default('https://oauth2.googleapis.com/token'),
  YOUTUBE_API_BASE_URL: z.url().default('https://www.googleapis.com'),
  /**
   * PEM file of extra CA certificates trusted for Web Push endpoints, beside the system ones (a
   * push relay behind a private CA; the tests' local stand-in push service).
   */
  WEB_PUSH_CA_FILE: z.string().optional(),
  /**
   * Comma-separated host names (or IP addresses) that outbound requests to URLs given by users or
   * platforms (Web Push endpoints, upload URLs) may reach even though they resolve to a loopback,
   * private or otherwise non-public address (src/outbound/gate.ts; docs/security.md). Empty: none.
   */
  OUTBOUND_ALLOWED_HOSTS: z
    .string()
    .max(4096)
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean),
    ),
  // 32-byte key (64 hex chars or base64) that encrypts linked social-account tokens and signs OAuth
  // states; unset: one is generated once and kept in service_secrets (see docs/publishing.md).
  PUBLISHING_SECRET_KEY: z
    .string()
    .regex(/^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$/, 'must be 32 bytes as 64 hex characters or base64')
    .optional(),
});

export type Env = z.infer<typeof envSchema>;

export interface Config extends Readonly<Env> {
  /** Absolute data directory. */
  readonly dataDir: string;
  readonly mediaDir: string;
  readonly tmpDir: string;
  readonly smsOutboxFile: string;
  /** PUBLIC_BASE_URL, else http://localhost:PORT (with PORT=0: the port taken, see withPublicBaseUrl). */
  readonly publicBaseUrl: string;
  readonly embeddedDatabase: boolean;
}

export class ConfigError extends Error {}

/** Parses the given environment (process.env by default). Throws ConfigError with one line naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings mean "unset", as in most shells' `VAR= cmd`.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`invalid environment variable ${name}: ${issue.message}`);
  }
  const e = parsed.data;
  if ((e.ADMIN_PHONE_NUMBER === undefined) !== (e.ADMIN_PASSWORD === undefined)) {
    throw new ConfigError('invalid environment variable ADMIN_PASSWORD: ADMIN_PHONE_NUMBER and ADMIN_PASSWORD go together');
  }
  if (e.SESSION_TIMEOUT_MINUTE_SECONDS !== 60 && e.NODE_ENV !== 'test') {
    throw new ConfigError('invalid environment variable SESSION_TIMEOUT_MINUTE_SECONDS: only for tests (NODE_ENV=test)');
  }
  if (e.ERASURE_STEP_PAUSE_MS !== 0 && e.NODE_ENV !== 'test') {
    throw new ConfigError('invalid environment variable ERASURE_STEP_PAUSE_MS: only for tests (NODE_ENV=test)');
  }
  if (e.SMS_PROVIDER === 'http') {
    if (e.SMS_HTTP_URL === undefined) throw new ConfigError('invalid environment variable SMS_HTTP_URL: required with SMS_PROVIDER=http');
    if (e.SMS_HTTP_TOKEN === undefined) throw new ConfigError('invalid environment variable SMS_HTTP_TOKEN: required with SMS_PROVIDER=http');
    // The messages carry one-time codes: in production they travel encrypted.
    if (e.NODE_ENV === 'production' && !e.SMS_HTTP_URL.startsWith('https://')) {
      throw new ConfigError('invalid environment variable SMS_HTTP_URL: must be https:// in production');
    }
  }
  if (e.MEDIA_STORAGE === 's3' && e.S3_BUCKET === undefined) {
    throw new ConfigError('invalid environment variable S3_BUCKET: required with MEDIA_STORAGE=s3');
  }
  if ((e.S3_ACCESS_KEY_ID === undefined) !== (e.S3_SECRET_ACCESS_KEY === undefined)) {
    throw new ConfigError('invalid environment variable S3_SECRET_ACCESS_KEY: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together');
  }
  if (e.MEDIA_PUBLIC_BASE_URL !== undefined && e.MEDIA_STORAGE !== 's3') {
    throw new ConfigError('invalid environment variable MEDIA_PUBLIC_BASE_URL: only with MEDIA_STORAGE=s3');
  }
  const dataDir = path.resolve(e.DATA_DIR);
  return Object.freeze({
    ...e,
    dataDir,
    mediaDir: path.resolve(e.MEDIA_DIR ?? path.join(dataDir, 'media')),
    tmpDir: path.join(dataDir, 'tmp'),
    smsOutboxFile: path.resolve(e.SMS_OUTBOX_FILE ?? path.join(dataDir, 'sms-outbox.jsonl')),
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    embeddedDatabase: e.DATABASE_URL === undefined,
  });
}

/**
 * The same configuration with its public base URL for the port actually taken: with PORT=0 and
 * no PUBLIC_BASE_URL the URL is only known once the node listens, and it is derived then, before
 * any service is built from the configuration.
 */
export function withPublicBaseUrl(config: Config, port: number): Config {
  if (config.PUBLIC_BASE_URL !== undefined) return config;
  return Object.freeze({ ...config, publicBaseUrl: `http://localhost:${port}` });
}
