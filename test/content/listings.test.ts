// GET /content/api/v1/all and /completed over the real server: shapes, search, filters, sorting,
// pages, the map viewport, the language fallback, bad input, and that search and viewport
// predicates are served by their indexes.
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { CONTENT, createContent, fullBody, publish, uploadFlowBody } from './fixtures.js';
import { textArray } from '../../src/db/sql-fragments.js';
import { announceContentChanged } from '../helpers/behind-the-service.js';

const booted = useTestServer();
let server: TestServer;
let owner: TestUser;
let other: TestUser;
let anonymous: ApiClient;
/** A tag unique to this run, so searches see only this file's items. */
const tag = `#t${randomBytes(4).toString('hex')}`;
const ids: Record<string, string> = {};

const at = (lat: number, long: number) => ({ geo: { lat, long } });
const block = (lang: string, project_name: string, address = 'somewhere', extra: Record<string, string> = {}) => ({
  lang,
  project_name,
  description: 'desc',
  address,
  ...extra,
});

beforeAll(async () => {
  server = booted.current;
  [owner, other] = await Promise.all([registerAndLogin(server), registerAndLogin(server)]);
  anonymous = new ApiClient(server.url);
  const tags = { hash_tags: [tag] };
  ids.saigon = await publish(server, owner, fullBody({ ...tags, ...at(10.7296, 106.7218), price: 3_000_000_000, area: 60 }), {
    createdAt: '2024-03-10T08:00:00Z',
  });
  ids.hanoi = await publish(
    server,
    owner,
    fullBody({
      ...tags,
      ...at(21.0285, 105.8542),
      price: 5_000_000_000,
      area: 100,
      amenities: ['pool'],
      real_estate_info: { legal_certificates: 'pink_book', apartment_type: 'villa', project_status: 'under_construction' },
      content_info: [block('vi', 'Biệt thự Đống Đa', 'Đống Đa, Hà Nội'), block('en', 'Dong Da villa', 'Dong Da, Hanoi')],
    }),
    { createdAt: '2024-05-20T08:00:00Z' },
  );
  ids.seoul = await publish(server, other, uploadFlowBody({ ...tags, geo: { type: 'Point', coordinates: [126.978, 37.5665] } }), {
    createdAt: '2024-07-01T08:00:00Z',
  });
  ids.fijiEast = await publish(
    server,
    other,
    fullBody({
      ...tags,
      ...at(-17.7, 178.0),
      unit_price: 'USD',
      price: 100_000,
      area: 1000,
      unit_area: 'sqft',
      content_info: [block('en', 'Fiji beach house')],
    }),
    { createdAt: '2024-08-01T08:00:00Z' },
  );
  ids.fijiWest = await publish(
    server,
    other,
    fullBody({
      ...tags,
      ...at(-17.7, -179.5),
      unit_price: 'USD',
      price: 120_000,
      area: 1100,
      unit_area: 'ft²',
      content_info: [block('en', 'Taveuni bungalow')],
    }),
    { createdAt: '2024-08-02T08:00:00Z' },
  );
  ids.draft = await createContent(owner, fullBody({ ...tags, ...at(10.7296, 106.7218) }));
});

const idsOf = (items: { id: string }[]) => items.map((i) => i.id);
const all = (query: string, client: ApiClient = anonymous) => client.get(`${CONTENT}/all?search=${encodeURIComponent(tag)}&${query}`);

describe('GET /content/api/v1/all', () => {
  it('should fail with bad query values', async () => {
    for (const q of [
      'per_page=1000',
      'per_page=0',
      'page=0',
      'page=abc',
      'column=password_hash',
      'column=id;drop',
      'sort=sideways',
      'price_from=-1',
      'price_to=cheap',
      'unit_price=XYZ',
      'unit_area=acre',
      'lang=fr',
      'created_at_start_date=yesterday',
    ]) {
      expectErrorEnvelope(await anonymous.get(`${CONTENT}/all?${q}`), 400, 'validation.error');
    }
  });

  it('should answer the listing shape', async () => {
    const res = await all('per_page=2');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(Object.keys(res.body.data).sort()).toEqual(['hasMore', 'item', 'total']);
    expect(res.body.data.total).toBe(5);
    expect(res.body.data.hasMore).toBe(true);
    expect(res.body.data.item).toHaveLength(2);
    const item = res.body.data.item[0];
    expect(item.id).toBe(ids.fijiWest); // newest first by default
    expect(item.price_per_area).toBeCloseTo(120_000 / 1100);
    expect(item.unit_area).toBe('sqft');
    expect(Array.isArray(item.content_info)).toBe(true);
    expect(item.uploader).toMatchObject({ user_id: other.userId, name: 'Test User', phone_number: null });
  });

  it('should answer the last page without hasMore', async () => {
    const last = await all('per_page=2&page=3');
    expect(last.body.data.item).toHaveLength(1);
    expect(last.body.data.hasMore).toBe(false);
  });

  it('should give images as {id, url}', async () => {
    await server.service.app.database.rows(sql`
      update contents set images = ${JSON.stringify([{ id: 'img-1', path: `images/${ids.saigon}/a.jpg`, name: 'a.jpg' }])}::jsonb where id = ${ids.saigon}`);
    await announceContentChanged(server, ids.saigon);
    const res = await all('unit_price=VND&column=price&sort=asc&per_page=1');
    expect(res.body.data.item[0].images).toEqual([{ id: 'img-1', url: `${server.service.config.publicBaseUrl}/media/images/${ids.saigon}/a.jpg` }]);
  });

  it('should hide unpublished items except from their uploader', async () => {
    expect(idsOf((await all('per_page=100')).body.data.item)).not.toContain(ids.draft);
    expect(idsOf((await all('per_page=100', other.api)).body.data.item)).not.toContain(ids.draft);
    const own = await all('per_page=100', owner.api);
    expect(idsOf(own.body.data.item)).toContain(ids.draft);
    expect(own.body.data.item.find((i: { id: string }) => i.id === ids.draft).status).toBe('processing');
  });

  it('should search accent- and case-insensitively across languages', async () => {
    const search = async (text: string) => idsOf((await anonymous.get(`${CONTENT}/all?per_page=100&search=${encodeURIComponent(text)}`)).body.data.item);
    expect(await search('can ho')).toContain(ids.saigon);
    expect(await search('CĂN HỘ sài gòn')).toContain(ids.saigon);
    expect(await search('gon sai')).toContain(ids.saigon); // every term, any order
    expect(await search('dong da')).toContain(ids.hanoi); // đ folds to d
    expect(await search('Đống')).toContain(ids.hanoi);
    expect(await search('강남')).toEqual([ids.seoul]);
    expect(await search('서울 아파트')).toEqual([ids.seoul]);
    expect(await search('riverside saigon')).toContain(ids.saigon); // English block too
    expect(await search('can ho zzzz')).toEqual([]);
  });

  it('should treat SQL-ish and wildcard search strings as plain text', async () => {
    for (const text of ["'; drop table contents; --", '%', '\\', "' or '1'='1", '%%%', 'k%b', 'a_b%c']) {
      const res = await anonymous.get(`${CONTENT}/all?search=${encodeURIComponent(text)}`);
      expect(res.status, text).toBe(200);
      expect(res.body.data.total, text).toBe(0);
    }
    expect((await all('per_page=1')).body.data.total).toBe(5);
    // `_` and `%` separate words (CONTRACT §23 searches words), they are never "any character".
    expect((await all('search=pink_book')).body.data.total).toBeGreaterThan(0);
    expect((await anonymous.get(`${CONTENT}/all?search=${encodeURIComponent('pinkxbook')}`)).body.data.total).toBe(0);
    expect((await anonymous.get(`${CONTENT}/all?search=${encodeURIComponent('pink_b__k')}`)).body.data.total).toBe(0);
    expect((await anonymous.get(`${CONTENT}/all?search=${encodeURIComponent('p%k')}`)).body.data.total).toBe(0);
  });

  it('should filter by price, area, units, amenities, types, status, dates and language', async () => {
    const q = async (query: string) => idsOf((await all(`per_page=100&${query}`)).body.data.item).sort();
    expect(await q('price_from=4000000000')).toEqual([ids.hanoi]);
    expect(await q('price_to=110000')).toEqual([ids.fijiEast]);
    expect(await q('area_from=90&area_to=200')).toEqual([ids.hanoi]);
    expect(await q('unit_price=usd')).toEqual([ids.fijiEast, ids.fijiWest, ids.seoul].sort());
    expect(await q(`unit_area=${encodeURIComponent('sq ft')}`)).toEqual([ids.fijiEast, ids.fijiWest, ids.seoul].sort());
    expect(await q(`unit_area=${encodeURIComponent('m²')}`)).toEqual([ids.hanoi, ids.saigon].sort());
    expect(await q('amenities=pool,gym')).toEqual([ids.fijiEast, ids.fijiWest, ids.saigon].sort());
    expect(await q('amenities=pool')).toHaveLength(4);
    expect(await q('apartment_type=VILLA,castle')).toEqual([ids.hanoi]);
    expect(await q(`project_status=${encodeURIComponent('완공')}`)).toEqual([ids.seoul]);
    expect(await q('created_at_start_date=2024-05-20&created_at_end_date=2024-07-01')).toEqual([ids.hanoi, ids.seoul].sort());
    expect(await q('created_at_end_date=2024-03-10T08:00:00Z')).toEqual([ids.saigon]);
    expect(await q('lang=ko')).toEqual([ids.seoul]);
    const ko = await all('lang=ko');
    expect(ko.body.data.item[0].content_info.map((b: { lang: string }) => b.lang)).toEqual(['ko']);
  });

  it('should sort by a whitelisted column', async () => {
    const prices = (await all('per_page=100&column=price&sort=asc')).body.data.item.map((i: { price: number }) => i.price);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    const perArea = (await all('per_page=100&column=price_per_area&sort=DESC')).body.data.item.map((i: { price_per_area: number }) => i.price_per_area);
    expect(perArea).toEqual([...perArea].sort((a, b) => b - a));
  });
});

describe('GET /content/api/v1/completed', () => {
  const completed = (query: string, headers: Record<string, string> = {}) =>
    anonymous.get(`${CONTENT}/completed?search=${encodeURIComponent(tag)}&${query}`, { headers });

  it('should fail with bad coordinates or pages', async () => {
    for (const q of [
      'latitude=91&longitude=0',
      'latitude=abc&longitude=1',
      'latitude=10',
      'longitude=10',
      'latitude=1&longitude=181',
      'latitude=1&longitude=1&zoom_level=30',
      'zoom_level=5',
      'per_page=1000',
      'page=-1',
    ]) {
      expectErrorEnvelope(await anonymous.get(`${CONTENT}/completed?${q}`), 400, 'validation.error');
    }
  });

  it('should fail with a bad token', async () => {
    expectErrorEnvelope(await anonymous.get(`${CONTENT}/completed`, { token: 'not-a-jwt' }), 401);
  });

  it('should answer completed items with paging fields', async () => {
    const res = await completed('per_page=2&page=2');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ total: 5, page: 2, per_page: 2, total_pages: 3 });
    expect(res.body.data.items).toHaveLength(2);
    const firstPage = await completed('');
    expect(firstPage.body.data).toMatchObject({ page: 1, per_page: 10 });
    expect(idsOf(firstPage.body.data.items)).not.toContain(ids.draft);
    const item = firstPage.body.data.items.find((i: { id: string }) => i.id === ids.saigon);
    expect(item).toMatchObject({ reaction_count: 0, location: 'District 7, Ho Chi Minh City', status: 'completed' });
    expect(item.content_info).toEqual([expect.objectContaining({ lang: 'en', location: 'District 7, Ho Chi Minh City' })]);
    expect(item.video.url).toMatch(/\.m3u8$/);
  });

  it('should answer in x-language with English fallback', async () => {
    const pick = (res: { body: { data: { items: { id: string; content_info: { lang: string }[] }[] } } }, id: string) =>
      res.body.data.items.find((i) => i.id === id)!.content_info[0].lang;
    const ko = await completed('', { 'x-language': 'ko' });
    expect(pick(ko, ids.seoul)).toBe('ko');
    expect(pick(ko, ids.saigon)).toBe('en'); // no Korean block
    const vi = await completed('', { 'x-language': 'vi' });
    expect(pick(vi, ids.saigon)).toBe('vi');
    expect(pick(vi, ids.seoul)).toBe('en');
    const unknown = await completed('', { 'x-language': 'fr' });
    expect(pick(unknown, ids.saigon)).toBe('en');
  });

  it('should keep to the viewport of the zoom level', async () => {
    const near = async (lat: number, lng: number, zoom?: number) =>
      idsOf((await completed(`latitude=${lat}&longitude=${lng}${zoom === undefined ? '' : `&zoom_level=${zoom}`}`)).body.data.items).sort();
    expect(await near(10.73, 106.72, 12)).toEqual([ids.saigon]);
    expect(await near(10.73, 106.72)).toEqual([ids.saigon]); // default zoom 12
    expect(await near(10.73, 106.72, 5)).toEqual([ids.hanoi, ids.saigon].sort());
    expect(await near(10.73, 106.72, 4)).toEqual([ids.hanoi, ids.saigon, ids.seoul].sort());
    expect(await near(10.73, 106.72, 3)).toHaveLength(5); // 180° wide: reaches Fiji across the antimeridian
    expect(await near(21.03, 105.85, 12)).toEqual([ids.hanoi]);
    expect(await near(0, 0, 10)).toEqual([]);
    // Across the antimeridian.
    expect(await near(-17.7, 179.9, 6)).toEqual([ids.fijiEast, ids.fijiWest].sort());
    expect(await near(-17.7, -179.9, 6)).toEqual([ids.fijiEast, ids.fijiWest].sort());
  });
});

describe('indexes', () => {
  // Runs last: adds filler rows so the planner has a realistic table to choose plans for.
  beforeAll(async () => {
    await server.service.app.database.rows(sql`
      insert into contents (id, uploader_id, status, price, unit_price, area, unit_area, latitude, longitude, search_text, amenities, video, created_at)
      select gen_random_uuid(), ${other.userId}, 'completed', 1000 + i, 'VND', 50, 'm2', -60 + (i % 120), -170 + (i % 340),
             'filler listing number ' || i, case when i % 2 = 0 then array['filler-pool'] else '{}' end, '{"status":"completed"}'::jsonb,
             now() - i * interval '1 minute'
      from generate_series(1, 5000) as i`);
    await server.service.app.database.rows(sql`analyze contents`);
  });

  /**
   * The plan with sequential scans priced out: a few thousand rows still fit in a handful of pages,
   * where a scan is honestly cheapest; this shows which index serves the predicate once the
   * table is large (docs/content.md has the plans at 100,000 rows).
   */
  async function plan(query: ReturnType<typeof sql>): Promise<string> {
    return server.service.app.database.transaction(async (tx) => {
      await tx.rows(sql`set local enable_seqscan = off`);
      const rows = await tx.rows<Record<string, string>>(sql`explain ${query}`);
      return rows.map((r) => Object.values(r)[0]).join('\n');
    });
  }

  it('should serve search from the trigram index and the viewport from the geo index', async () => {
    const search = await plan(sql`select id from contents c where c.deleted_at is null and c.status = 'completed' and c.search_text like '%can ho%'`);
    expect(search).toContain('contents_search_trgm_idx');
    const viewport = await plan(sql`select id from contents c where c.deleted_at is null and c.status = 'completed'
      and c.latitude is not null and c.latitude between 10 and 11 and c.longitude between 106 and 107`);
    expect(viewport).toContain('contents_completed_geo_idx');
  });

  it('should send list filters as a text[] value the planner can estimate', async () => {
    const db = server.service.app.database;
    const values = ['pool', 'a"b', 'c\\d', 'NULL', '{x,y}', ' sp ', '', 'Căn hộ'];
    const [echo] = await db.rows<{ v: string[] }>(sql`select ${textArray(values)} as v`);
    expect(echo.v).toEqual(values);
    // Half the 5,000 filler rows have the amenity. As a sub-select the list was estimated at the
    // default 0.5 % of rows whatever it held, which sent a common amenity through its GIN bitmap.
    const [plan] = await db.rows<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
      sql`explain (format json) select 1 from contents c where c.amenities @> ${textArray(['filler-pool'])}`,
    );
    const estimate = plan['QUERY PLAN'][0].Plan['Plan Rows'];
    expect(estimate).toBeGreaterThan(1000);
  });
});
