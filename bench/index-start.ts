// Index start (issue 32): how long a node takes from its process start until `/readyz` says its
// listing index answers, loading every listed row from PostgreSQL vs starting from a snapshot and
// catching up (docs/search.md, "Start from a snapshot"). Server mode.
//   node --import tsx bench/index-start.ts
//   BENCH_ITEMS=1000000 BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/seeded node --import tsx bench/index-start.ts
// Knobs: BENCH_ITEMS (100000: seeded with bench/seed-content.ts up to this many items),
// BENCH_DATABASE_URL (a database used as it is, seeded up to BENCH_ITEMS and kept; default: a
// scratch database on BENCH_SERVER_URL, postgres://postgres@127.0.0.1:5432/postgres, dropped
// after), BENCH_REDIS_URL (redis://127.0.0.1:6379/0, keys under a unique prefix), BENCH_CHANGED
// (1000: items changed after the snapshot, so the catch-up has rows to read again), BENCH_ROUNDS
// (2: starts of each kind, alternating), BENCH_SERVICE (dist: the service as `npm start` runs it,
// built first when the sources changed; tsx: main.ts through tsx).
// Steps: seed; start a node with snapshots off (every row read); start one with snapshots on and
// none stored (it loads from the rows, then writes one: its time and size are printed); change
// BENCH_CHANGED items; then the rounds: a start with snapshots off, a start from the snapshot.
// Each start is timed from the spawn of the process to the first 200 of /readyz.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { z } from 'zod';
import { loadConfig } from '../src/config.js';
import { startService } from '../service.js';
import { createLogger } from '../src/shared/logger.js';
import { benchChildren, benchUserToken, runOnServer, startedChild, stopChild, sleep, SEEDING_SERVICE_ENV } from './bench-helpers.js';
import { seedContent } from './seed-content.js';
import { build, isStale } from '../scripts/build.mjs';

const env = z
  .object({
    BENCH_ITEMS: z.coerce.number().int().positive().default(100_000),
    BENCH_DATABASE_URL: z.string().optional(),
    BENCH_SERVER_URL: z.string().default('postgres://postgres@127.0.0.1:5432/postgres'),
    BENCH_REDIS_URL: z.string().default('redis://127.0.0.1:6379/0'),
    BENCH_CHANGED: z.coerce.number().int().min(0).default(1_000),
    BENCH_ROUNDS: z.coerce.number().int().positive().default(2),
    BENCH_SERVICE: z.enum(['dist', 'tsx']).default('dist'),
  })
  .parse(process.env);

const JWT_SECRET = randomBytes(32).toString('hex');
const log = createLogger('warn');

async function seed(databaseUrl: string, dataDir: string): Promise<void> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    ...SEEDING_SERVICE_ENV,
    LISTING_SNAPSHOT_MINUTES: '0',
    JWT_SECRET,
  });
  const service = await startService(config, log);
  try {
    const db = service.app.database.longRunning;
    const [{ n }] = await db.rows<{ n: number }>(sql`select count(*)::int as n from contents`);
    if (n < env.BENCH_ITEMS) {
      const token = await benchUserToken(service.url, dataDir);
      await seedContent(db, env.BENCH_ITEMS - n, String(decodeJwt(token).sub));
    }
    // Every measured start begins without a snapshot.
    await db.rows(sql`delete from listing_snapshots`);
  } finally {
    await service.close();
  }
}

/** Runs a statement on the bench's database from a short-lived node-postgres client. */
async function query<T>(databaseUrl: string, text: string): Promise<T[]> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

const metric = (text: string, pattern: RegExp): string | null => pattern.exec(text)?.[1] ?? null;

async function start(childEnv: Record<string, string>): Promise<{ ms: number; base: string; stop: () => Promise<void> }> {
  const args = env.BENCH_SERVICE === 'dist' ? ['dist/main.js'] : ['--import', 'tsx', 'main.ts'];
  const started = performance.now();
  const { child, base } = await startedChild(args, childEnv, '/readyz');
  return { ms: performance.now() - started, base, stop: () => stopChild(child) };
}

async function main(): Promise<void> {
  if (env.BENCH_SERVICE === 'dist' && isStale()) {
    console.log('building dist/ (the service as npm start runs it)');
    build();
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-bench-start-'));
  const scratch = env.BENCH_DATABASE_URL ? null : `revs_bench_start_${randomBytes(5).toString('hex')}`;
  let databaseUrl = env.BENCH_DATABASE_URL ?? '';
  if (scratch) {
    await runOnServer(env.BENCH_SERVER_URL, `CREATE DATABASE ${scratch}`);
    const url = new URL(env.BENCH_SERVER_URL);
    url.pathname = `/${scratch}`;
    databaseUrl = url.toString();
  }
  try {
    await seed(databaseUrl, dataDir);
    const base = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: env.BENCH_REDIS_URL,
      REDIS_PREFIX: `revs-bench-start-${randomBytes(4).toString('hex')}:`,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      NODE_ENV: 'production',
      // Each /readyz asked while the index loads is logged as a failed request: not printed.
      LOG_LEVEL: 'fatal',
      RATE_LIMIT_SCALE: '100000',
      SCHEDULER_ENABLED: 'false',
      VIDEO_WORKERS: '0',
      JWT_SECRET,
    };
    const [{ listed }] = await query<{ listed: number }>(
      databaseUrl,
      'select count(*)::int as listed from contents where deleted_at is null and moderation_status is null and not suspension_hold',
    );
    console.log(
      `${listed} listed items; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} on ${os.cpus().length} cores`,
    );

    // The snapshot, written by a node that loaded from the rows.
    const writer = await start({ ...base, LISTING_SNAPSHOT_MINUTES: '30' });
    const readyAt = performance.now();
    for (;;) {
      const text = await (await fetch(`${writer.base}/metrics`)).text();
      if (metric(text, /^listing_snapshots_written (\d+)/m) === '1') break;
      await sleep(100);
    }
    const writeMs = performance.now() - readyAt;
    await writer.stop();
    const [size] = await query<{ chunks: number; bytes: number }>(
      databaseUrl,
      'select count(*)::int as chunks, sum(octet_length(bytes))::float8 as bytes from listing_snapshot_chunks',
    );
    console.log(`first start (no snapshot, every row read): ${(writer.ms / 1000).toFixed(1)} s to ready`);
    console.log(`snapshot written ${(writeMs / 1000).toFixed(1)} s after ready: ${size.chunks} chunks, ${(size.bytes / 1e6).toFixed(1)} MB`);

    if (env.BENCH_CHANGED > 0) {
      await query(
        databaseUrl,
        `update contents set reaction_count = reaction_count + 1 where id in (select id from contents order by random() limit ${env.BENCH_CHANGED})`,
      );
    }

    console.log('\n| start | to /readyz s | index load s (/metrics) | catch-up reloaded | dropped |\n|---|---|---|---|---|');
    for (let round = 0; round < env.BENCH_ROUNDS; round++) {
      for (const [label, minutes] of [
        ['every row from the database', '0'],
        ['from the snapshot', '30'],
      ] as const) {
        const node = await start({ ...base, LISTING_SNAPSHOT_MINUTES: minutes });
        const text = await (await fetch(`${node.base}/metrics`)).text();
        await node.stop();
        const loadSeconds = Number(metric(text, /^listing_index_load_seconds\{source="\w+"\} ([\d.e+-]+)/m));
        const reloaded = metric(text, /^listing_index_catch_up_rows\{action="reloaded"\} (\d+)/m);
        const dropped = metric(text, /^listing_index_catch_up_rows\{action="dropped"\} (\d+)/m);
        console.log(`| ${label} | ${(node.ms / 1000).toFixed(1)} | ${loadSeconds.toFixed(1)} | ${reloaded} | ${dropped} |`);
      }
    }
    console.log(
      `load average after: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    for (const child of benchChildren) await stopChild(child);
    if (scratch) await runOnServer(env.BENCH_SERVER_URL, `DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`).catch((err) => console.error('drop failed', err));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
