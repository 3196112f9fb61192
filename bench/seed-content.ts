// Seeds a listing data set straight into the database, the way a bulk load would: 200 uploaders,
// `items` content items spread over four cities (one INSERT … SELECT generate_series), reactions
// on every 50th item by three users, and `viewerId` following 20 uploaders. Shared by the benches
// that load listings (content-queries.ts, read-path.ts, listing-plans.ts).
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../src/db/client.js';
import { foldForSearch } from '../src/content/values.js';

// Project names (accented, as users write them) and their folded search text.
export const NAMES = [
  'Căn hộ Sài Gòn Riverside',
  'Biệt thự Đống Đa',
  'Nhà phố Thảo Điền',
  'Căn hộ Vinhomes Central Park',
  'Chung cư Hà Đông',
  'Đất nền Đà Nẵng',
  'Penthouse Landmark 81',
  'Shophouse Phú Mỹ Hưng',
  '서울 강남 아파트',
  '부산 해운대 오피스텔',
  'Riverside apartment District 2',
  'Garden villa Tay Ho',
  'Studio near Ben Thanh',
  'Sky Garden duplex',
  'Lakeview townhouse',
];
export const CITIES = [
  { lat: 10.78, lng: 106.7, vi: 'TP. Hồ Chí Minh', en: 'Ho Chi Minh City' },
  { lat: 21.03, lng: 105.85, vi: 'Hà Nội', en: 'Hanoi' },
  { lat: 16.05, lng: 108.2, vi: 'Đà Nẵng', en: 'Da Nang' },
  { lat: 37.56, lng: 126.98, vi: 'Seoul', en: 'Seoul' },
];

/** Items per INSERT statement. */
const BATCH = 100_000;

/** Inserts the data set; `viewerId` (an existing user) follows 20 of the uploaders. */
export async function seedContent(db: DatabaseHandle['longRunning'], items: number, viewerId: string): Promise<void> {
  const started = Date.now();
  // Bulk load the way one would: drop the GIN indexes, insert, build them again (from the
  // migration's own definitions), instead of maintaining them row by row.
  const ginIndexes = await db.rows<{ indexname: string; indexdef: string }>(sql`
    select indexname, indexdef from pg_indexes where tablename = 'contents' and indexdef like '%USING gin%'`);
  for (const ix of ginIndexes) await db.rows(sql`drop index ${sql.identifier(ix.indexname)}`);
  await db.rows(sql`
    insert into users (id, username, password_hash, phone_number, phone_verified, given_name, family_name)
    select gen_random_uuid(), 'uploader' || i, 'x', '+8491' || lpad(i::text, 7, '0'), true, 'Uploader', i::text
    from generate_series(1, 200) as i`);
  // In statements of BATCH items each: one statement of 1,000,000 rows would hold them all in one
  // transaction, and PGlite's memory is bounded.
  for (let first = 1; first <= items; first += BATCH) await insertItems(db, first, Math.min(items, first + BATCH - 1));
  // Reactions: three users like every 50th item; the viewer follows 20 uploaders.
  await db.rows(sql`
    insert into content_reactions (content_id, user_id)
    select c.id, u.id from (select id, row_number() over () as rn from contents) c
    cross join (select id from users where username like 'uploader%' limit 3) u where c.rn % 50 = 0`);
  await db.rows(
    sql`update contents c set reaction_count = r.n from (select content_id, count(*)::int as n from content_reactions group by content_id) r where r.content_id = c.id`,
  );
  await db.rows(sql`insert into follows (follower_id, following_id) select ${viewerId}, id from users where username like 'uploader%' limit 20`);
  for (const ix of ginIndexes) await db.rows(sql.raw(ix.indexdef));
  await db.rows(sql`analyze`);
  console.log(`seeded ${items} items in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Items number `first` to `last` (one statement). */
async function insertItems(db: DatabaseHandle['longRunning'], first: number, last: number): Promise<void> {
  const names = JSON.stringify(NAMES);
  const folded = JSON.stringify(NAMES.map(foldForSearch));
  const cities = JSON.stringify(CITIES);
  const citiesFolded = JSON.stringify(CITIES.map((c) => `${foldForSearch(c.vi)} | ${foldForSearch(c.en)}`));
  await db.rows(sql`
    with up as (select array_agg(id) as ids from users where username like 'uploader%'),
    src as (
      select i, (i % ${NAMES.length}) as n, (i % 4) as ci, (random() * 0.6 - 0.3) as jlat, (random() * 0.6 - 0.3) as jlng,
             (array['apartment','villa','townhouse','studio'])[1 + i % 4] as kind,
             (array['pool','gym','parking','garden','security','elevator'])[1 + i % 6] as a1,
             (array['pool','gym','parking','garden','security','elevator'])[1 + (i / 6) % 6] as a2
      from generate_series(${first}::int, ${last}::int) as i)
    insert into contents (id, uploader_id, status, price, unit_price, area, unit_area, latitude, longitude, hash_tags, amenities,
      real_estate_info, is_multi_language, content_info, langs, facet_apartment_types, facet_project_statuses, search_text, video,
      reaction_count, created_at, updated_at)
    select gen_random_uuid(), (select ids[1 + s.i % 200] from up),
      case when s.i % 20 = 0 then 'processing' else 'completed' end,
      round((500000000 + random() * 20000000000)::numeric, -6)::float8, case when s.i % 10 = 0 then 'USD' else 'VND' end,
      round((30 + random() * 300)::numeric, 1)::float8, 'm2',
      ((${cities}::jsonb -> s.ci ->> 'lat')::float8 + s.jlat), ((${cities}::jsonb -> s.ci ->> 'lng')::float8 + s.jlng),
      '["#bds"]'::jsonb, array[s.a1, s.a2],
      jsonb_build_object('legal_certificates', 'pink_book', 'apartment_type', s.kind, 'project_status', 'completed'), true,
      jsonb_build_array(
        jsonb_build_object('lang', 'vi', 'project_name', (${names}::jsonb ->> s.n) || ' ' || s.i, 'description', 'Mô tả căn hộ số ' || s.i,
          'address', ${cities}::jsonb -> s.ci ->> 'vi', 'legal_certificates', 'pink_book', 'apartment_type', s.kind, 'project_status', 'completed',
          'extra_description', null),
        jsonb_build_object('lang', 'en', 'project_name', (${names}::jsonb ->> s.n) || ' ' || s.i, 'description', 'Listing number ' || s.i,
          'address', ${cities}::jsonb -> s.ci ->> 'en', 'legal_certificates', 'pink_book', 'apartment_type', s.kind, 'project_status', 'completed',
          'extra_description', null)),
      array['vi','en'], array[s.kind], array['completed'],
      (${folded}::jsonb ->> s.n) || ' ' || s.i || ' | mo ta can ho so ' || s.i || ' | listing number ' || s.i || ' | '
        || (${citiesFolded}::jsonb ->> s.ci) || ' | pink_book | ' || s.kind || ' | completed | #bds | ' || s.a1 || ' | ' || s.a2,
      jsonb_build_object('original_name', 'v.mp4', 'size', 1000000, 'resolution', '1080x1920', 'duration', 30, 'status', 'completed',
        'original_path', 'videos/x/original.mp4', 'playlist_path', 'videos/x/hls/index.m3u8', 'thumbnail_path', 'videos/x/thumb.jpg', 'error', null),
      0, now() - random() * interval '365 days', now()
    from src s`);
}
