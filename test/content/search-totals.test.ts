// `total` over more than 10,000 listed items, from the listing index (CONTRACT §23): exact up to
// 10,000 matches, above that an estimate within 10 % that follows a bulk load at once (no
// statistics to go stale), `hasMore` exact at the end, and an empty page past it. The rows are
// bulk-inserted behind the service, then announced as docs/search.md says (listingsRewritten).
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, registerAndLogin, type TestUser } from '../helpers/api.js';
import { CONTENT } from './fixtures.js';
import { indexReady } from './search.fixtures.js';

const booted = useTestServer();
const VIDEO = JSON.stringify({
  original_name: 'v.mp4',
  size: 1_000_000,
  resolution: '1080x1920',
  duration: 30,
  status: 'completed',
  error: null,
  error_message: null,
  original_path: 'videos/x/original.mp4',
  playlist_path: 'videos/x/hls/index.m3u8',
  thumbnail_path: 'videos/x/thumb.jpg',
});
let owner: TestUser;

/**
 * The test's own statements (a bulk import, counts over every row) go through the database's
 * long-running side: in server mode a request's statement is given DATABASE_TIMEOUT_MS (2 s) to
 * answer before the node treats PostgreSQL as down, a bound meant for requests that a
 * 12,000-row insert on a loaded machine can pass without anything being wrong.
 */
const testQueries = () => booted.current.service.app.database.longRunning;

/** Inserts `count` published items of `owner` behind the service: price `base + i`, one in three with the word `lakeside`. */
async function bulkInsert(count: number, base: number): Promise<void> {
  await testQueries().rows(sql`
    insert into contents (id, uploader_id, status, price, unit_price, area, unit_area, latitude, longitude, search_text, amenities, video, created_at)
    select gen_random_uuid(), ${owner.userId}, 'completed', ${base} + i, 'VND', 40 + (i % 100), 'm2', 10 + (i % 100) / 1000.0, 106 + (i % 100) / 1000.0,
           case when i % 3 = 0 then 'bulk lakeside listing ' || i else 'bulk listing ' || i end, '{}', ${VIDEO}::jsonb,
           now() - i * interval '1 second'
    from generate_series(1, ${count}) as i`);
  // Announced as an import must be: every node forgets its pages and reloads its index.
  await booted.current.service.services.readModel.listingsRewritten();
  await indexReady(booted.current);
}

async function listedCount(condition: ReturnType<typeof sql>): Promise<number> {
  const [row] = await testQueries().rows<{ n: number }>(sql`
    select count(*)::int as n from contents c where c.deleted_at is null and c.status = 'completed' and c.moderation_status is null and ${condition}`);
  return row.n;
}

async function listing(query: string): Promise<{ total: number; hasMore: boolean; item: { id: string }[] }> {
  const res = await owner.api.get(`${CONTENT}/all?${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

beforeAll(async () => {
  owner = await registerAndLogin(booted.current);
  await bulkInsert(12_000, 1_000_000);
}, 120_000);

describe('totals over more than 10,000 items', () => {
  it('should estimate a broad total within 10 %, and count a narrow one exactly', async () => {
    const all = await listedCount(sql`true`);
    expect(all).toBeGreaterThan(10_000);
    for (let i = 0; i < 5; i++) {
      const { total, hasMore, item } = await listing(`per_page=20&page=${1 + i * 7}`);
      expect(Math.abs(total - all) / all).toBeLessThan(0.1);
      expect(hasMore).toBe(true);
      expect(item).toHaveLength(20);
    }
    // A word in a third of the items: 4,000 matches, counted exactly.
    const lakeside = await listedCount(sql`c.search_text like '%lakeside%'`);
    expect(lakeside).toBeLessThanOrEqual(10_000);
    expect((await listing('search=lakeside&per_page=10')).total).toBe(lakeside);
    // A price range of 9,000 items, sorted by another column: exact.
    const ranged = await listedCount(sql`c.price between 1000500 and 1009499`);
    expect(ranged).toBe(9_000);
    expect((await listing('price_from=1000500&price_to=1009499&column=area&sort=asc&per_page=10&page=3')).total).toBe(ranged);
  });

  it('should keep price and area ranges exact as loaded items change', async () => {
    // Twenty items from the middle of the loaded prices move to both ends, and their areas with them.
    const moved = await testQueries().rows<{ id: string }>(sql`
      select id from contents where uploader_id = ${owner.userId} and price between 1005000 and 1005019 order by price`);
    expect(moved).toHaveLength(20);
    for (const [i, { id }] of moved.entries()) {
      const res = await owner.api.put(`/api/v1/content/${id}`, {
        price: i % 2 ? 1_011_000 : 1_002_000,
        area: i % 2 ? 45 : 95,
        location: { latitude: 10.05, longitude: 106.05 },
        languages: { en: { projectName: 'moved', description: 'moved', address: 'x' } },
      });
      expect(res.status, res.text).toBe(200);
    }
    const anonymous = new ApiClient(booted.current.url);
    const cases: [string, ReturnType<typeof sql>][] = [
      ['price_from=1004000&price_to=1006000', sql`c.price between 1004000 and 1006000`],
      ['price_from=1001500&price_to=1002500', sql`c.price between 1001500 and 1002500`],
      ['price_from=1010000&price_to=1012000&area_from=40&area_to=50', sql`c.price between 1010000 and 1012000 and c.area between 40 and 50`],
      ['area_from=90&area_to=99&column=price&sort=desc', sql`c.area between 90 and 99`],
    ];
    for (const [query, condition] of cases) {
      const expected = await listedCount(condition);
      expect((await listing(`${query}&per_page=1`)).total, query).toBe(expected);
      const res = await anonymous.get(`${CONTENT}/all?${query}&per_page=1`);
      expect(res.body.data.total, query).toBe(expected);
    }
  });

  it('should say hasMore exactly at the end, and answer an empty page past it', async () => {
    const lakeside = await listedCount(sql`c.search_text like '%lakeside%'`);
    const lastPage = Math.ceil(lakeside / 100);
    const last = await listing(`search=lakeside&per_page=100&page=${lastPage}`);
    expect(last.hasMore).toBe(false);
    expect(last.item).toHaveLength(lakeside - (lastPage - 1) * 100);
    expect((await listing(`search=lakeside&per_page=100&page=${lastPage - 1}`)).hasMore).toBe(true);
    const past = await listing(`search=lakeside&per_page=100&page=${lastPage + 3}`);
    expect(past).toMatchObject({ item: [], hasMore: false, total: lakeside });
  });

  it('should follow a second bulk load at once (no estimate goes stale)', async () => {
    const before = (await listing('per_page=1')).total;
    await bulkInsert(6_000, 2_000_000);
    const all = await listedCount(sql`true`);
    const after = (await listing('per_page=1')).total;
    expect(Math.abs(after - all) / all).toBeLessThan(0.1);
    expect(after).toBeGreaterThan(before + 3_000);
    // The new rows' own range: 6,000 items, exact.
    expect((await listing('price_from=2000000&per_page=1')).total).toBe(await listedCount(sql`c.price >= 2000000`));
  }, 120_000);
});
