// The query plans of the feed buckets at 100,000 items (at several depths, also with the generic
// plan a prepared statement gets), and what the reaction_count index costs a reaction. (`/all`
// and `/completed` are answered by the listing index, not by SQL: bench/search-load.ts.)
//   npx tsx bench/listing-plans.ts      (BENCH_ITEMS=100000, BENCH_MODES=embedded,server)
// For each storage mode it starts the service in this process (embedded PGlite in a temporary
// DATA_DIR, or a scratch database bench_<random> on the PostgreSQL server at BENCH_DATABASE_URL,
// default postgres://postgres@127.0.0.1:5432/postgres, dropped afterwards), seeds the items with
// seed-content.ts, and for each combination runs the query once (warm-up), then prints
// EXPLAIN (ANALYZE, BUFFERS). Each combination is a call of the listing repository
// (ContentListingRepository.feedBucket) on a database handle that catches the first statement the call sends, so these are
// the plans of the real queries with their real parameters (the call itself is the warm-up). Ends with a summary table: combination, the plan's top nodes, ms.
// BENCH_ONLY=<text> keeps the combinations whose label contains it; BENCH_PLANS=0 prints only
// the summary. Not part of `npm test`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { loadConfig } from '../src/config.js';
import { startService } from '../service.js';
import { createLogger } from '../src/shared/logger.js';
import type { DatabaseHandle, Queryable } from '../src/db/client.js';
import type { ContentListingRepository } from '../src/content/index.js';
import { createRepositories } from '../src/services.js';
import { runOnServer } from './bench-helpers.js';
import { seedContent } from './seed-content.js';

const items = Number(process.env.BENCH_ITEMS ?? 100_000);
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const modes = (process.env.BENCH_MODES ?? 'embedded,server').split(',');
const only = process.env.BENCH_ONLY ?? '';
const printPlans = process.env.BENCH_PLANS !== '0';
const PER_PAGE = 20;

interface Combination {
  label: string;
  /** The repository call whose first statement is explained. */
  call: (listings: ContentListingRepository) => Promise<unknown>;
  /**
   * Also explain the statement's generic plan: the one a prepared statement (server mode names
   * every statement, src/db/statement-names.ts) is given after five runs, planned without the
   * values. The feed's buckets were fast with their values and slow in the generic plan.
   */
  generic?: boolean;
}

interface Measured {
  mode: string;
  label: string;
  top: string;
  rows: number;
  ms: number;
}

async function feedBuckets(db: DatabaseHandle['longRunning'], viewerId: string): Promise<Combination[]> {
  const listings = createRepositories(db).listings;
  const snapshot = await listings.feedSnapshot();
  // The window and threshold of src/content/feed.ts; 61 rows: a page of 20 and the two read ahead.
  const bucketQuery = (bucket: 0 | 1 | 2, after: { createdKey: string; id: string } | null, limit = 3 * PER_PAGE + 1) => ({
    bucket,
    userId: viewerId,
    snapshot,
    freshWindowDays: 7,
    popularMinReactions: 2,
    after,
    limit,
  });
  const list: Combination[] = [];
  for (const bucket of [0, 1, 2] as const) {
    list.push({ label: `/feeds bucket ${bucket}: first page`, call: (l: ContentListingRepository) => l.feedBucket(bucketQuery(bucket, null)), generic: true });
    // Pages deeper in the bucket: after its 100th item, half-way, and its last rows, as a cursor says.
    const all = await listings.feedBucket(bucketQuery(bucket, null, items));
    const depths: [string, number][] = [
      ['after 100 items', 99],
      ['half-way', Math.floor(all.length / 2)],
      ['its last 10 items', all.length - 11],
    ];
    for (const [name, at] of depths) {
      const row = at >= 0 ? all[at] : undefined;
      if (!row) continue;
      const after = { createdKey: row.created_key, id: row.id };
      list.push({
        label: `/feeds bucket ${bucket}: ${name} (cursor)`,
        call: (l: ContentListingRepository) => l.feedBucket(bucketQuery(bucket, after)),
        generic: true,
      });
    }
  }
  return list;
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
}

/**
 * The plan's top nodes and its scans of contents, e.g. `Incremental Sort › Index Scan contents_price_id_idx`.
 * A page query is described below its inner Limit (the page's own plan: the join to users and
 * the sort of the page's 21 rows above it are the same for every page); a count below its
 * Aggregate and Limit.
 */
function describePlan(root: PlanNode): string {
  const limits: PlanNode[] = [];
  const findLimits = (n: PlanNode) => {
    // A Limit inside a per-row subquery (the feed's reactions as of the snapshot) is not the page's.
    if (n['Parent Relationship'] === 'SubPlan') return;
    if (n['Node Type'] === 'Limit') limits.push(n);
    n.Plans?.forEach(findLimits);
  };
  findLimits(root);
  let node = limits.at(-1)?.Plans?.[0] ?? root;
  while (['Limit', 'Aggregate', 'Subquery Scan'].includes(node['Node Type']) && node.Plans?.length) node = node.Plans[0];
  const scans: string[] = [];
  const visit = (n: PlanNode) => {
    if (n['Relation Name'] === 'contents' || (n['Index Name'] ?? '').startsWith('contents')) {
      scans.push(n['Index Name'] ? `${n['Node Type']} ${n['Index Name']}` : n['Node Type']);
    }
    n.Plans?.forEach(visit);
  };
  visit(node);
  const scanText = [...new Set(scans)].join(' + ');
  return scans.length && !scanText.startsWith(node['Node Type']) ? `${node['Node Type']} › ${scanText}` : scanText || node['Node Type'];
}

/**
 * The first statement `call` sends through the listing repository, caught on its way to the
 * database (and run there: the call is also the warm-up, so the plan reads a warm cache, as a busy
 * node would).
 */
async function firstStatement(db: DatabaseHandle['longRunning'], call: Combination['call']): Promise<SQL> {
  let caught: SQL | null = null;
  const catching: Queryable = {
    rows: <T>(query: SQL) => {
      caught ??= query;
      return db.rows<T>(query);
    },
  };
  await call(createRepositories(db).listings.in(catching));
  if (!caught) throw new Error('the call sent no statement');
  return caught;
}

async function measure(db: DatabaseHandle['longRunning'], mode: string, c: Combination): Promise<Measured> {
  const query = await firstStatement(db, c.call);
  const lines = await db.rows<Record<string, string>>(sql`explain (analyze, buffers) ${query}`);
  // The same plan as JSON (planned only, not run again) for the summary's node names.
  const [json] = await db.rows<Record<string, unknown>>(sql`explain (format json) ${query}`);
  return described(mode, c.label, lines, json);
}

/**
 * The generic plan of the call's first statement, run: prepared, planned without its values
 * (plan_cache_mode), executed once as a warm-up and then explained, in one transaction so that
 * every step is on the same connection.
 */
async function measureGeneric(db: DatabaseHandle['longRunning'], mode: string, c: Combination): Promise<Measured> {
  const query = await firstStatement(db, c.call);
  const { sql: text, params } = new PgDialect().sqlToQuery(query);
  // The statement's parameters are primitives: their string form is the SQL literal's text.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  const literal = (v: unknown) => (v === null ? 'null' : `'${String(v).replace(/'/g, "''")}'`);
  const execute = `execute generic_plan(${params.map(literal).join(', ')})`;
  const [lines, json] = await db.transaction(async (tx) => {
    await tx.rows(sql.raw(`prepare generic_plan as ${text}`));
    await tx.rows(sql.raw('set local plan_cache_mode = force_generic_plan'));
    await tx.rows(sql.raw(execute));
    const explained = await tx.rows<Record<string, string>>(sql.raw(`explain (analyze, buffers) ${execute}`));
    const [planned] = await tx.rows<Record<string, unknown>>(sql.raw(`explain (format json) ${execute}`));
    await tx.rows(sql.raw('deallocate generic_plan'));
    return [explained, planned] as const;
  });
  return described(mode, `${c.label}, generic plan`, lines, json);
}

function described(mode: string, label: string, text: Record<string, string>[], json: Record<string, unknown>): Measured {
  const lines = text.map((r) => Object.values(r)[0]);
  const ms = Number(/Execution Time: ([\d.]+) ms/.exec(lines.join('\n'))?.[1] ?? NaN);
  const rows = Number(/actual time=[\d.]+\.\.[\d.]+ rows=(\d+)/.exec(lines[0])?.[1] ?? NaN);
  const raw = Object.values(json)[0];
  const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
  if (printPlans) console.log(`\n[${mode}] ${label} (${ms} ms)\n${lines.map((l) => `  ${l}`).join('\n')}`);
  return { mode, label, top: describePlan(doc[0].Plan), rows, ms };
}

/**
 * What indexing reaction_count costs a reaction: `count` single-row updates of reaction_count (one
 * statement each, as a reaction does), with the index and, on other rows after dropping it, without
 * (then it is built again). Without it an update may be HOT (no index entries) where the page has
 * room; with it never. Each pass follows a VACUUM, so both start from the same kind of pages.
 */
async function reactionWriteCost(db: DatabaseHandle['longRunning'], count: number): Promise<{ withIndex: number; without: number }> {
  const ids = (await db.rows<{ id: string }>(sql`select id from contents where deleted_at is null order by random() limit ${count * 2}`)).map((r) => r.id);
  const pass = async (batch: string[]) => {
    await db.rows(sql`vacuum contents`);
    const started = process.hrtime.bigint();
    for (const id of batch) await db.rows(sql`update contents set reaction_count = reaction_count + 1 where id = ${id}`);
    return Number(process.hrtime.bigint() - started) / 1e6 / batch.length;
  };
  const [definition] = await db.rows<{ indexdef: string }>(sql`select indexdef from pg_indexes where indexname = 'contents_reaction_count_id_idx'`);
  if (!definition) throw new Error('contents_reaction_count_id_idx is missing');
  const withIndex = await pass(ids.slice(0, count));
  await db.rows(sql`drop index contents_reaction_count_id_idx`);
  try {
    return { withIndex, without: await pass(ids.slice(count)) };
  } finally {
    await db.rows(sql.raw(definition.indexdef));
  }
}

const reactionCosts: string[] = [];

async function runMode(mode: string): Promise<Measured[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-bench-plans-'));
  const storageEnv: Record<string, string> = {};
  let drop: (() => Promise<void>) | null = null;
  if (mode === 'server') {
    const name = `bench_${randomBytes(5).toString('hex')}`;
    await runOnServer(serverUrl, `CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    storageEnv.DATABASE_URL = url.toString();
    drop = () => runOnServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
  const config = loadConfig({
    ...storageEnv,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    SCHEDULER_ENABLED: 'false',
    VIDEO_WORKERS: '0',
  });
  const service = await startService(config, createLogger('warn'));
  try {
    console.log(`\n== ${mode} ==`);
    const db = service.app.database.longRunning;
    const [viewer] = await db.rows<{ id: string }>(sql`
      insert into users (id, username, password_hash, phone_number, phone_verified, given_name, family_name)
      values (gen_random_uuid(), ${`planviewer${randomBytes(3).toString('hex')}`}, 'x', '+84900000001', true, 'Plan', 'Viewer') returning id`);
    await seedContent(db, items, viewer.id);
    const list = [...(await feedBuckets(db, viewer.id))].filter((c) => c.label.includes(only));
    const results: Measured[] = [];
    for (const c of list) {
      results.push(await measure(db, mode, c));
      if (c.generic) results.push(await measureGeneric(db, mode, c));
    }
    const cost = await reactionWriteCost(db, 300);
    reactionCosts.push(
      `${mode}: ${cost.withIndex.toFixed(2)} ms per reaction_count update with contents_reaction_count_id_idx, ${cost.without.toFixed(2)} ms without`,
    );
    return results;
  } finally {
    await service.close();
    if (drop) await drop().catch((err) => console.error('drop failed', err));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const all: Measured[] = [];
for (const mode of modes) all.push(...(await runMode(mode)));
const cpus = os.cpus();
console.log(`\n${items} items, ${PER_PAGE} per page; ${cpus.length} × ${cpus[0]?.model ?? 'CPU'}, Node ${process.version}`);
console.log('EXPLAIN (ANALYZE, BUFFERS) execution time after one warm-up run; top: the plan under Limit/Aggregate › its scans of contents.\n');
console.log('| mode | combination | top › scans | rows | ms |');
console.log('|---|---|---|---:|---:|');
for (const r of all) console.log(`| ${r.mode} | ${r.label} | ${r.top} | ${r.rows} | ${r.ms.toFixed(2)} |`);
const slowest = [...all].sort((a, b) => b.ms - a.ms).slice(0, 15);
console.log('\nSlowest:');
for (const r of slowest) console.log(`  ${r.ms.toFixed(1).padStart(8)} ms  [${r.mode}] ${r.label}  (${r.top})`);
console.log('\nReaction write cost (300 updates, each its own statement):');
for (const line of reactionCosts) console.log(`  ${line}`);
