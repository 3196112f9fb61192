// Matching one newly published item against many saved searches (CONTRACT §16): the one indexed
// statement of src/saved-searches/match-repository.ts (a GiST lookup of the item's point in the
// searches' (price, area, latitude, longitude) boxes, then the other filters on those found), and
// the whole matching transaction (dequeue, match records, notifications).
//   npx tsx bench/saved-search-match.ts
// Env: BENCH_SEARCHES (100000), BENCH_ITEMS (items matched, 30), BENCH_MODES (embedded,server),
// BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/postgres; a fresh database is made and dropped).
// Searches are seeded with one INSERT … SELECT generate_series, with a realistic mix: 90 % a price
// range (±20 %) around 1-20 billion VND, 70 % a district-sized viewport (zoom 13) somewhere within
// ±0.25° of one of five city centres, 30 % an amenity, 20 % a search word,
// 25 % an apartment type; 70 % instant, 20 % daily, 10 % off. Prints, per mode, the median and
// p95 of the statement and of the transaction, the searches matched per item, and the same
// statement with index scans turned off (what "scan them all per item" costs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { startService, type RunningService } from '../service.js';
import { createLogger } from '../src/shared/logger.js';
import { createRepositories } from '../src/services.js';

const searches = Number(process.env.BENCH_SEARCHES ?? 100_000);
const items = Number(process.env.BENCH_ITEMS ?? 30);
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const modes = (process.env.BENCH_MODES ?? 'embedded,server').split(',');
const USERS = Math.max(1, Math.ceil(searches / 50));

const CITIES = [
  [10.78, 106.7],
  [21.03, 105.85],
  [16.05, 108.2],
  [10.03, 105.78],
  [20.86, 106.68],
];

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const ms = (x: number) => `${x.toFixed(2)} ms`;

async function seed(service: RunningService): Promise<void> {
  const db = service.app.database.longRunning;
  const started = Date.now();
  await db.rows(sql`
    insert into users (id, username, password_hash, phone_number, given_name, family_name)
    select gen_random_uuid(), 'ssbench' || i, 'unused', '+8492' || lpad(i::text, 7, '0'), 'Bench', i::text
    from generate_series(1, ${USERS}) i`);
  // One row per search; the columns as src/saved-searches/matchable.ts writes them (open ends ±1e300).
  await db.rows(sql`
    with u as (select array_agg(id) as ids from users where username like 'ssbench%'),
    g as (
      select i, random() as r1, random() as r2, random() as r3, random() as r4, random() as r5, random() as r6, random() as r7,
        (array[10.78, 21.03, 16.05, 10.03, 20.86])[1 + (i % 5)] + (random() - 0.5) * 0.5 as lat,
        (array[106.7, 105.85, 108.2, 105.78, 106.68])[1 + (i % 5)] + (random() - 0.5) * 0.5 as lng,
        (1 + 19 * random()) * 1e9 as centre
      from generate_series(1, ${searches}) i
    ),
    s as (
      select i, (select ids[1 + (i % ${USERS})] from u) as user_id,
        case when r1 < 0.9 then centre * 0.8 end as price_from,
        case when r1 < 0.9 then centre * 1.2 end as price_to,
        case when r2 < 0.7 then lat - 0.04 end as south, case when r2 < 0.7 then lat + 0.04 end as north,
        case when r2 < 0.7 then lng - 0.09 end as west, case when r2 < 0.7 then lng + 0.09 end as east,
        case when r3 < 0.3 then array['pool'] else '{}'::text[] end as amenities,
        case when r4 < 0.2 then array[(array['riverside', 'garden', 'sky', 'lake', 'central'])[1 + (i % 5)]] else '{}'::text[] end as terms,
        case when r5 < 0.25 then array[(array['apartment', 'villa', 'townhouse'])[1 + (i % 3)]] else '{}'::text[] end as types,
        case when r6 < 0.7 then 'instant' when r6 < 0.9 then 'daily' else 'off' end as notify
      from g
    )
    insert into saved_searches (id, user_id, name, filters, notify, bounds, unit_price, amenities, apartment_types, search_terms, south, north, west, east)
    select gen_random_uuid(), user_id, 'bench ' || i, '{}'::jsonb, notify,
      cube(array[coalesce(price_from, -1e300), -1e300, coalesce(south, -1e300), coalesce(west, -1e300)],
           array[coalesce(price_to, 1e300), 1e300, coalesce(north, 1e300), coalesce(east, 1e300)]),
      case when price_from is not null then 'VND' end, amenities, types, terms, south, north, west, east
    from s`);
  await db.rows(sql`analyze saved_searches`);
  console.log(`seeded ${searches} saved searches of ${USERS} users in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** A published item at a city, with a price, queued for matching as the publish trigger does. */
async function publishItem(service: RunningService, uploaderId: string, i: number): Promise<string> {
  const db = service.app.database.longRunning;
  const [cityLat, cityLng] = CITIES[i % CITIES.length];
  const [lat, lng] = [cityLat + (Math.random() - 0.5) * 0.5, cityLng + (Math.random() - 0.5) * 0.5];
  const id = (await db.rows<{ id: string }>(sql`select gen_random_uuid() as id`))[0].id;
  const words = ['riverside', 'garden', 'sky', 'lake', 'central'];
  await db.rows(sql`
    insert into contents (id, uploader_id, price, unit_price, area, unit_area, latitude, longitude, amenities,
      facet_apartment_types, search_text, video)
    values (${id}, ${uploaderId}, ${(2 + (i % 15)) * 1e9}, 'VND', ${50 + i}, 'm2', ${lat}, ${lng},
      ${i % 2 ? '{pool,gym}' : '{gym}'}::text[], ${i % 3 ? '{apartment}' : '{villa}'}::text[],
      ${`${words[i % 5]} apartment ${i}`}, '{"status":"pending"}'::jsonb)`);
  await db.rows(sql`update contents set status = 'completed' where id = ${id}`);
  return id;
}

async function runMode(mode: string): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-ssbench-'));
  let databaseUrl: string | null = null;
  let dropDatabase = async () => undefined as void;
  if (mode === 'server') {
    const name = `revs_bench_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dropDatabase = async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    };
  }
  const config = loadConfig({
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    SCHEDULER_ENABLED: 'false',
    VIDEO_WORKERS: '0',
    BCRYPT_ROUNDS: '4',
  });
  const service = await startService(config, createLogger('warn'));
  try {
    console.log(`\n== ${mode} (${service.app.database.mode})`);
    await seed(service);
    const db = service.app.database.longRunning;
    const [uploader] = await db.rows<{ id: string }>(sql`select id from users where username = 'ssbench1'`);
    const matches = createRepositories(db).savedSearchMatches;

    const statement: number[] = [];
    const transaction: number[] = [];
    const matched: number[] = [];
    for (let i = 0; i < items; i++) {
      const id = await publishItem(service, uploader.id, i);
      let t = performance.now();
      const hits = await matches.searchesMatching(id);
      statement.push(performance.now() - t);
      t = performance.now();
      matched.push(await service.services.savedSearchMatcher.matchPublished(id));
      transaction.push(performance.now() - t);
      if (hits.length !== matched.at(-1)) throw new Error('the statement and the transaction disagree');
    }
    console.log(`searches matched per item   median ${percentile(matched, 50)}, max ${Math.max(...matched)} (of ${searches})`);
    console.log(`matching statement          median ${ms(percentile(statement, 50))}, p95 ${ms(percentile(statement, 95))}`);
    console.log(
      `whole matching transaction  median ${ms(percentile(transaction, 50))}, p95 ${ms(percentile(transaction, 95))} (incl. match rows and notifications)`,
    );

    // The same statement without the GiST index: every search tested per item.
    const scan: number[] = [];
    const probe = await publishItem(service, uploader.id, items + 1);
    await db.transaction(async (tx) => {
      await tx.rows(sql`set local enable_indexscan = off`);
      await tx.rows(sql`set local enable_bitmapscan = off`);
      for (let i = 0; i < Math.min(items, 10); i++) {
        const t = performance.now();
        await matches.in(tx).searchesMatching(probe);
        scan.push(performance.now() - t);
      }
    });
    console.log(`without the index (scan)    median ${ms(percentile(scan, 50))}`);
  } finally {
    await service.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    await dropDatabase();
  }
}

for (const mode of modes) await runMode(mode);
