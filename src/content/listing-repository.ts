// The listing queries on `contents` (with each item's uploader): the filtered `GET /all` page, the
// `GET /completed` page, their totals and the buckets of the personal feed. Every filter is a
// parameterised SQL fragment; the sort column comes from a whitelist (SORT_COLUMNS), so no client
// text becomes SQL.
import { sql, type SQL } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { sqlList } from '../db/sql-fragments.js';
import { CONTENT_COLUMNS, textArray, type ContentRow } from './content-repository.js';
import type { ListAllQuery } from './schemas.js';
import { escapeLike } from './values.js';
import type { Viewport } from './viewport.js';
import type { FacetName, Facets } from './listing-index.js';
import { priceBucketOf } from './price-buckets.js';
import type { Cluster, ClusterBox } from './index-map.js';

/**
 * `total` is exact up to this many matches (counting stops one row later, so a count never reads
 * more); above it, it is the planner's estimate (docs/content.md, "Pages and totals").
 */
export const COUNT_CAP = 1_000;

/** Which live items a listing shows: published ones, plus the caller's own, or every one. */
export type ListingVisibility = { kind: 'published' } | { kind: 'published-or-own'; userId: string } | { kind: 'every' };

/** The filters of `GET /all` besides search, as its query gives them. */
export type ListingFilters = Pick<
  ListAllQuery,
  | 'lang' | 'price_from' | 'price_to' | 'area_from' | 'area_to' | 'unit_price' | 'unit_area'
  | 'amenities' | 'apartment_type' | 'project_status' | 'created_at_start_date' | 'created_at_end_date'
>;

/** The columns a listing may be ordered by in SQL (`relevance` exists only in the listing index). */
export type SortColumn = Exclude<ListAllQuery['column'], 'relevance'>;
export interface ListingSort {
  column: SortColumn;
  direction: 'asc' | 'desc';
}

/**
 * A position in a listing's order: the sort value of a row, as PostgreSQL writes it as text (so a
 * float or a microsecond timestamp compares exactly as stored when sent back), and its id.
 */
export interface SortBoundary {
  value: string;
  id: string;
}

/** Where a page starts: after `after` (keyset; from the start when null), then `offset` rows on. */
export interface PageStart {
  after: SortBoundary | null;
  offset: number;
}

export interface ListingPage {
  rows: ContentRow[];
  hasMore: boolean;
  /** The position of the page's last row; null when the page is empty. */
  last: SortBoundary | null;
}

/** How many items match a listing: counted (exact), or the planner's estimate above COUNT_CAP. */
export interface ListingTotal {
  count: number;
  exact: boolean;
}

/** A feed row with its created_at as microsecond-precise UTC text (the cursor's key). */
export type FeedRow = ContentRow & { created_key: string };

/** One bucket of the feed (see feed.ts) within a snapshot, after the cursor's item when given. */
export interface FeedBucketQuery {
  bucket: 0 | 1 | 2;
  userId: string;
  /** Snapshot time, as UTC_TEXT_FORMAT text. */
  snapshot: string;
  freshWindowDays: number;
  popularMinReactions: number;
  after: { createdKey: string; id: string } | null;
  limit: number;
}

/**
 * The followed uploaders' bucket first reads, per uploader, FOLLOWED_SHARE times its even share of
 * the page plus FOLLOWED_MARGIN rows: 20 follows and 61 rows (three pages of 20), 10 each instead
 * of 61; 200 follows, 4 each. When items are spread evenly over the uploaders, an uploader fills
 * that cap within the page in a few reads in a hundred (which then read again, uncapped).
 */
const FOLLOWED_SHARE = 2;
const FOLLOWED_MARGIN = 4;

/** Microsecond-precise UTC timestamp text, as PostgreSQL writes and reads it back exactly. */
const UTC_TEXT_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.US';

const where = (conditions: SQL[]): SQL => sql.join(conditions, sql` and `);

/**
 * THE rule of what may be listed at all (to anyone, before visibility and filters): every listing
 * query and the per-node listing index (listing-index.ts, which loads and reloads exactly the rows
 * this selects) use it, so whatever later hides an item from listings is written here once.
 */
export function listedConditions(): SQL[] {
  // Held for review, removed by a moderator, or its uploader suspended (CONTRACT §21): listed to nobody.
  return [sql`c.deleted_at is null`, sql`c.moderation_status is null`, sql`not c.suspension_hold`];
}

/**
 * A published item (of a live row, `c`): its video is ready, and no moderation mark or suspended
 * uploader holds it (CONTRACT §21). Listings use it beside listedConditions; the live feed and
 * saved-search matching, which read one item, use it alone.
 */
export const PUBLISHED = sql`(c.status = 'completed' and c.moderation_status is null and not c.suspension_hold)`;

/** An item as the listing index keeps it: its row, and its timestamps as microseconds since the epoch (exact order). */
export type IndexRow = ContentRow & {
  created_us: number;
  updated_us: number;
  langs: string[] | null;
  facet_apartment_types: string[] | null;
  facet_project_statuses: string[] | null;
  search_text: string | null;
};

const INDEX_COLUMNS = sql`${CONTENT_COLUMNS}, c.langs, c.facet_apartment_types, c.facet_project_statuses, c.search_text,
  (extract(epoch from c.created_at) * 1000000)::float8 as created_us,
  (extract(epoch from c.updated_at) * 1000000)::float8 as updated_us`;

/**
 * One `search_text LIKE '%term%'` per term (all must match), on the folded text. The pg_trgm GIN
 * index on search_text serves the terms of 3+ characters; a shorter term has no trigram: as a
 * LIKE it would make the GIN index scan every entry (seconds at 100,000 items), so it is checked
 * with strpos on the rows the other conditions leave, which no index is asked to serve.
 */
const searchConditions = (terms: string[]): SQL[] =>
  terms.map((term) =>
    [...term].length >= 3 ? sql`c.search_text like ${`%${escapeLike(term)}%`}` : sql`strpos(c.search_text, ${term}) > 0`,
  );

/**
 * The search terms as the estimate of a total sees them: every term as a LIKE, which the planner
 * estimates from the column's statistics (a short term's strpos would get a fixed default
 * guess). Only ever planned, never run, so the full GIN scan a short LIKE would cost is not paid.
 */
const estimatedSearchConditions = (terms: string[]): SQL[] => terms.map((term) => sql`c.search_text like ${`%${escapeLike(term)}%`}`);

function visibilityCondition(visibility: ListingVisibility): SQL[] {
  switch (visibility.kind) {
    case 'published':
      return [PUBLISHED];
    case 'published-or-own':
      return [sql`(${PUBLISHED} or c.uploader_id = ${visibility.userId})`];
    case 'every':
      return [];
  }
}

function filterConditions(f: ListingFilters): SQL[] {
  const conditions: SQL[] = [];
  // As containment rather than `= any(langs)`: the planner estimates it from the column's element
  // statistics and can serve it from the GIN index (migration 0013), so a rare language is found
  // directly instead of by walking the order's index through every other item.
  if (f.lang) conditions.push(sql`c.langs @> ${textArray([f.lang])}`);
  if (f.price_from !== undefined) conditions.push(sql`c.price >= ${f.price_from}`);
  if (f.price_to !== undefined) conditions.push(sql`c.price <= ${f.price_to}`);
  if (f.area_from !== undefined) conditions.push(sql`c.area >= ${f.area_from}`);
  if (f.area_to !== undefined) conditions.push(sql`c.area <= ${f.area_to}`);
  if (f.unit_price) conditions.push(sql`c.unit_price = ${f.unit_price}`);
  if (f.unit_area) conditions.push(sql`c.unit_area = ${f.unit_area}`);
  // amenities: the item has every one listed; apartment_type / project_status: any one listed.
  if (f.amenities?.length) conditions.push(sql`c.amenities @> ${textArray(f.amenities)}`);
  if (f.apartment_type?.length) conditions.push(sql`c.facet_apartment_types && ${textArray(f.apartment_type.map((v) => v.toLowerCase()))}`);
  if (f.project_status?.length) conditions.push(sql`c.facet_project_statuses && ${textArray(f.project_status.map((v) => v.toLowerCase()))}`);
  if (f.created_at_start_date) conditions.push(sql`c.created_at >= ${f.created_at_start_date.toISOString()}::timestamptz`);
  if (f.created_at_end_date) conditions.push(sql`c.created_at <= ${f.created_at_end_date.toISOString()}::timestamptz`);
  return conditions;
}

function viewportConditions(v: Viewport): SQL[] {
  return [
    sql`c.latitude is not null and c.latitude between ${v.south} and ${v.north}`,
    v.west <= v.east ? sql`c.longitude between ${v.west} and ${v.east}` : sql`(c.longitude >= ${v.west} or c.longitude <= ${v.east})`,
  ];
}

/**
 * How each sort column's value travels as a boundary: timestamps as microsecond UTC text (a Date
 * would drop the microseconds now() writes), numbers as PostgreSQL's own text output, which since
 * PostgreSQL 12 is the shortest text that reads back as the same float8 (extra_float_digits at its
 * default of 1, which nothing here changes). Every sort column is NOT NULL (migrations 0002), so
 * a boundary never needs NULL ordering; a row without a value still gives no boundary (see page).
 */
const SORT_TYPES = {
  created_at: 'timestamp',
  updated_at: 'timestamp',
  price: 'float8',
  area: 'float8',
  price_per_area: 'float8',
  reaction_count: 'int4',
} as const satisfies Record<SortColumn, 'timestamp' | 'float8' | 'int4'>;

function sortValueAsText(column: SortColumn): SQL {
  const col = sql.raw(`c.${column}`);
  return SORT_TYPES[column] === 'timestamp' ? sql`to_char(${col} at time zone 'UTC', ${UTC_TEXT_FORMAT})` : sql`${col}::text`;
}

function sortValueFromText(column: SortColumn, value: string): SQL {
  switch (SORT_TYPES[column]) {
    case 'timestamp':
      return sql`(${value}::timestamp at time zone 'UTC')`;
    case 'float8':
      return sql`${value}::float8`;
    case 'int4':
      return sql`${value}::int4`;
  }
}

/** `(column, id)` strictly after the boundary in the listing's order (both keys run the same way). */
function seekCondition(sort: ListingSort, after: SortBoundary): SQL {
  const operator = sql.raw(sort.direction === 'asc' ? '>' : '<');
  return sql`(${sql.raw(`c.${sort.column}`)}, c.id) ${operator} (${sortValueFromText(sort.column, after.value)}, ${after.id}::uuid)`;
}

/** The top node's row estimate of an `EXPLAIN (FORMAT JSON)` answer (JSON value or its text). */
function planRows(explained: unknown): number {
  const doc: unknown = typeof explained === 'string' ? JSON.parse(explained) : explained;
  const rows = Number((doc as { Plan?: { 'Plan Rows'?: unknown } }[])?.[0]?.Plan?.['Plan Rows']);
  return Number.isFinite(rows) ? Math.round(rows) : 0;
}

type PageRow = ContentRow & { sort_value: string | null };

/** The order of `GET /completed`: newest first. */
export const COMPLETED_SORT: ListingSort = { column: 'created_at', direction: 'desc' };

/** How search terms become conditions: to run (searchConditions) or only to estimate. */
type SearchAs = (terms: string[]) => SQL[];

/** The conditions of `GET /all`: live items the visibility allows, matching every filter and search term. */
function allConditions(visibility: ListingVisibility, terms: string[], filters: ListingFilters, search: SearchAs = searchConditions): SQL[] {
  return [...listedConditions(), ...visibilityCondition(visibility), ...search(terms), ...filterConditions(filters)];
}

/** The conditions of `GET /completed`: published items matching the search, inside the viewport when given. */
function completedConditions(terms: string[], viewport: Viewport | null, search: SearchAs = searchConditions): SQL[] {
  const conditions = [...listedConditions(), sql`c.status = 'completed'`, ...search(terms)];
  if (viewport) conditions.push(...viewportConditions(viewport));
  return conditions;
}

/**
 * One page of a listing (and one row more, for hasMore), ties broken on id so the order is total.
 * With a boundary the page seeks past it (a range on the index of the order) instead of reading
 * and dropping every row before it (OFFSET). The uploaders are joined to the page's rows only:
 * PostgreSQL estimates a row comparison from its first column alone (`reaction_count < 0`: no
 * row), and on such an estimate it joined every match to a scan of users (85,000 × 200 rows,
 * 11 s embedded, in bench/listing-plans.ts). Exported so that bench explains this very SQL.
 */
function pageQuery(conditions: SQL[], sort: ListingSort, limit: number, start: PageStart): SQL {
  const seek = start.after ? [seekCondition(sort, start.after)] : [];
  const order = sql`${sql.raw(`c.${sort.column}`)} ${sql.raw(sort.direction)}, c.id ${sql.raw(sort.direction)}`;
  return sql`
    select ${CONTENT_COLUMNS}, ${sortValueAsText(sort.column)} as sort_value
    from (select c.* from contents c where ${where([...conditions, ...seek])}
          order by ${order} limit ${limit + 1} offset ${start.offset}) as c
    join users u on u.id = c.uploader_id
    order by ${order}`;
}

/** Counts the matches, reading at most COUNT_CAP + 1 of them. */
const cappedCountQuery = (conditions: SQL[]): SQL =>
  sql`select count(*)::int as n from (select 1 from contents c where ${where(conditions)} limit ${COUNT_CAP + 1}) as capped`;

/** The query whose row estimate stands for the count of a broad listing. */
const estimatedCountQuery = (conditions: SQL[]): SQL => sql`select 1 from contents c where ${where(conditions)}`;

/**
 * The published items of one feed bucket, newest first, as of the snapshot: items created,
 * follows made and reactions given after it are not seen. The caller's own items are left out.
 *   0. items by uploaders the caller follows;
 *   1. others created within freshWindowDays before the snapshot with popularMinReactions reactions;
 *   2. every other item.
 * Each bucket is read by index walks in the page's order that stop after the page's rows (one
 * walk, or in bucket 0 one per followed uploader; plans at 100,000 items in docs/content.md, "The
 * feed's plans"). In server mode the statements are prepared, and PostgreSQL plans each once for
 * every parameter value (a generic plan): each is written so that this one plan is still the walk
 * whatever the caller, the snapshot or the cursor.
 */
function feedBucketQuery(q: FeedBucketQuery, capped = false): SQL {
  const at = sql`(${q.snapshot}::timestamp at time zone 'UTC')`;
  const published = [...listedConditions(), sql`c.status = 'completed'`, sql`c.created_at <= ${at}`, sql`c.uploader_id <> ${q.userId}`];
  const after = q.after ? [sql`(c.created_at, c.id) < ((${q.after.createdKey}::timestamp at time zone 'UTC'), ${q.after.id}::uuid)`] : [];
  const columns = sql`${CONTENT_COLUMNS}, to_char(c.created_at at time zone 'UTC', ${UTC_TEXT_FORMAT}) as created_key`;
  const newestFirst = sql`order by c.created_at desc, c.id desc limit ${q.limit}`;

  if (q.bucket === 0) {
    // Each followed uploader's newest items after the cursor, merged, and the page's `limit` rows
    // read after: entries of contents_published_uploader_created_idx (migration 0028; its
    // predicate is every condition here but the snapshot and the cursor, so the walk reads the
    // index alone where the visibility map allows), then `limit` rows. Each uploader's walk stops
    // after `limit` entries, or with `capped` after about twice its even share of the page
    // (FOLLOWED_SHARE; `per_uploader` says how many, so feedBucket can tell when that cap may have
    // cut the page short). Before, a walk of the newest-first index through everyone's items read
    // the rest of the index once the followed items ran out, and the generic plan read and sorted
    // every followed item (40 ms at 100,000 items and 20 follows).
    const perUploader = capped
      ? sql`(select least(${q.limit}::int, ${q.limit}::int * ${FOLLOWED_SHARE} / greatest(count(*)::int, 1) + ${FOLLOWED_MARGIN}) from followed)`
      : sql`${q.limit}::int`;
    return sql`
      with followed as materialized (
        select f.following_id from follows f where f.follower_id = ${q.userId} and f.created_at <= ${at}),
      cap as materialized (select ${perUploader} as k)
      select ${columns}, cap.k as per_uploader
      from (
        select newest.id from followed f
        cross join lateral (
          select c.created_at, c.id from contents c
          where ${where([...published, sql`c.uploader_id = f.following_id`, ...after])}
          order by c.created_at desc, c.id desc limit (select k from cap)) newest
        order by newest.created_at desc, newest.id desc limit ${q.limit}) page
      cross join cap
      join contents c on c.id = page.id
      join users u on u.id = c.uploader_id
      ${newestFirst}`;
  }

  const followed = sql`c.uploader_id in (select f.following_id from follows f where f.follower_id = ${q.userId} and f.created_at <= ${at})`;
  // The threshold is written into the statement, not bound: only with a constant can the planner
  // see that the partial contents_popular_created_idx (reaction_count >= 2, migration 0028) holds
  // every row the bucket asks for. Any threshold of 2 or more is served by it.
  if (!Number.isSafeInteger(q.popularMinReactions) || q.popularMinReactions < 1) throw new Error('popularMinReactions must be a positive integer');
  const minReactions = sql.raw(String(q.popularMinReactions));
  const fresh = sql`c.created_at > ${at} - ${`${q.freshWindowDays} days`}::interval`;
  // The reactions as of the snapshot are among today's, so the kept reaction_count is never below
  // their number: it is checked first, and the reaction rows up to T are counted (at most
  // `minReactions` of them: an item with thousands of likes costs as little as one with two) for
  // the few items that pass it.
  const reactedEnough = sql`(select count(*) from (select 1 from content_reactions r where r.content_id = c.id and r.created_at <= ${at} limit ${minReactions}) as upToT) = ${minReactions}`;
  const popular = [fresh, sql`c.reaction_count >= ${minReactions}`, reactedEnough];
  const conditions = q.bucket === 1
    ? [...published, sql`not ${followed}`, ...popular, ...after]
    : [...published, sql`not ${followed}`, sql`not (${where(popular)})`, ...after];
  // The page's rows first, then their uploaders: the join may not change the walk.
  return sql`
    select ${columns}
    from (select c.* from contents c where ${where(conditions)} ${newestFirst}) c
    join users u on u.id = c.uploader_id
    ${newestFirst}`;
}

export class ContentListingRepository extends Repository {
  /** A page of `GET /all`. */
  filteredPage(
    visibility: ListingVisibility,
    searchTerms: string[],
    filters: ListingFilters,
    sort: ListingSort,
    limit: number,
    start: PageStart,
  ): Promise<ListingPage> {
    return this.page(allConditions(visibility, searchTerms, filters), sort, limit, start);
  }

  filteredTotal(visibility: ListingVisibility, searchTerms: string[], filters: ListingFilters): Promise<ListingTotal> {
    return this.total(allConditions(visibility, searchTerms, filters), allConditions(visibility, searchTerms, filters, estimatedSearchConditions));
  }

  /** A page of `GET /completed`, newest first. */
  publishedPage(searchTerms: string[], viewport: Viewport | null, limit: number, start: PageStart): Promise<ListingPage> {
    return this.page(completedConditions(searchTerms, viewport), COMPLETED_SORT, limit, start);
  }

  publishedTotal(searchTerms: string[], viewport: Viewport | null): Promise<ListingTotal> {
    return this.total(completedConditions(searchTerms, viewport), completedConditions(searchTerms, viewport, estimatedSearchConditions));
  }

  private async page(conditions: SQL[], sort: ListingSort, limit: number, start: PageStart): Promise<ListingPage> {
    const rows = await this.db.rows<PageRow>(pageQuery(conditions, sort, limit, start));
    const hasMore = rows.length > limit;
    if (hasMore) rows.pop();
    const lastRow = rows.at(-1);
    const last = lastRow && lastRow.sort_value !== null ? { value: lastRow.sort_value, id: lastRow.id } : null;
    return { rows, hasMore, last };
  }

  /**
   * The number of matches: counted while it is at most COUNT_CAP, else the planner's row estimate
   * for the same conditions (`estimated`: the same with every search term as a LIKE), and never
   * less than what was counted. Counting every match of an
   * unselective search ("can ho" is in most Vietnamese listings) would read most of the table;
   * the estimate costs one planning.
   */
  private async total(conditions: SQL[], estimated: SQL[]): Promise<ListingTotal> {
    const [counted] = await this.db.rows<{ n: number }>(cappedCountQuery(conditions));
    if (counted.n <= COUNT_CAP) return { count: counted.n, exact: true };
    const [explained] = await this.db.rows<Record<string, unknown>>(sql`explain (format json) ${estimatedCountQuery(estimated)}`);
    return { count: Math.max(planRows(Object.values(explained)[0]), COUNT_CAP + 1), exact: false };
  }

  /**
   * Facet counts (CONTRACT §23) in SQL, for when the listing index cannot answer: each facet over
   * the matches of the other filters.
   */
  async facetCounts(visibility: ListingVisibility, searchTerms: string[], filters: ListingFilters, names: readonly FacetName[]): Promise<Facets> {
    const facets: Facets = {};
    const without = (facet: FacetName): ListingFilters => {
      switch (facet) {
        case 'amenities':
          return { ...filters, amenities: undefined };
        case 'apartment_type':
          return { ...filters, apartment_type: undefined };
        case 'project_status':
          return { ...filters, project_status: undefined };
        case 'price':
          return { ...filters, price_from: undefined, price_to: undefined };
      }
    };
    const valueCounts = async (facet: FacetName, column: SQL) => {
      const rows = await this.db.rows<{ value: string; n: number }>(sql`
        select v as value, count(*)::int as n from contents c, unnest(${column}) as v
        where ${where(allConditions(visibility, searchTerms, without(facet)))} group by v`);
      return Object.fromEntries(rows.map((r) => [r.value, r.n]));
    };
    for (const name of names) {
      if (name === 'amenities') facets.amenities = await valueCounts(name, sql`c.amenities`);
      if (name === 'apartment_type') facets.apartment_type = await valueCounts(name, sql`c.facet_apartment_types`);
      if (name === 'project_status') facets.project_status = await valueCounts(name, sql`c.facet_project_statuses`);
      if (name === 'price') {
        const rows = await this.db.rows<{ price: number; n: number }>(sql`
          select c.price::float8 as price, count(*)::int as n from contents c
          where ${where(allConditions(visibility, searchTerms, without(name)))} group by c.price`);
        const buckets = new Map<number, { from: number; to: number; count: number }>();
        for (const row of rows) {
          const bucket = priceBucketOf(Number(row.price));
          const kept = buckets.get(bucket.from);
          if (kept) kept.count += row.n;
          else buckets.set(bucket.from, { ...bucket, count: row.n });
        }
        facets.price = [...buckets.values()].sort((a, b) => a.from - b.from);
      }
    }
    return facets;
  }

  /**
   * Map clusters in SQL, for when the listing index cannot answer: the published matches in the
   * box grouped by the web-mercator grid cell of `level` (as clusterPoints does in memory).
   */
  async clusterCells(searchTerms: string[], filters: ListingFilters, box: ClusterBox, level: number, hiddenUploaders: string[]): Promise<{ clusters: Cluster[]; total: number }> {
    const cells = 2 ** level;
    const viewport = { south: box.minLat, north: box.maxLat, west: box.minLng, east: box.maxLng };
    const conditions = [...completedConditions(searchTerms, viewport), ...filterConditions(filters)];
    if (hiddenUploaders.length) conditions.push(sql`c.uploader_id <> all(${textArray(hiddenUploaders)}::uuid[])`);
    const lat = sql`radians(least(greatest(c.latitude, -85.05112878), 85.05112878))`;
    const rows = await this.db.rows<{ n: number; latitude: number; longitude: number; id: string; cx: number; cy: number }>(sql`
      select count(*)::int as n, avg(c.latitude)::float8 as latitude, avg(c.longitude)::float8 as longitude, min(c.id::text) as id, g.cx, g.cy
      from contents c, lateral (select
        least(greatest(floor((c.longitude + 180) / 360 * ${cells})::int, 0), ${cells - 1}) as cx,
        least(greatest(floor((0.5 - ln((1 + sin(${lat})) / (1 - sin(${lat}))) / (4 * pi())) * ${cells})::int, 0), ${cells - 1}) as cy) as g
      where ${where(conditions)}
      group by g.cx, g.cy
      order by g.cy, g.cx`);
    return {
      clusters: rows.map((r) => (r.n === 1 ? { latitude: r.latitude, longitude: r.longitude, count: 1, id: r.id } : { latitude: r.latitude, longitude: r.longitude, count: r.n })),
      total: rows.reduce((sum, r) => sum + r.n, 0),
    };
  }

  // ---- what the listing index loads (listing-index.ts): the listed rows, nothing else ----

  /** Listed items after `afterId` in id order: the index loads them page by page. */
  indexPage(afterId: string | null, limit: number): Promise<IndexRow[]> {
    const after = afterId ? [sql`c.id > ${afterId}::uuid`] : [];
    return this.db.rows<IndexRow>(sql`
      select ${INDEX_COLUMNS} from contents c join users u on u.id = c.uploader_id
      where ${where([...listedConditions(), ...after])} order by c.id limit ${limit}`);
  }

  /** The item if it is listed (none when it is not, or gone). */
  indexRow(id: string): Promise<IndexRow[]> {
    return this.db.rows<IndexRow>(sql`
      select ${INDEX_COLUMNS} from contents c join users u on u.id = c.uploader_id
      where ${where([...listedConditions(), sql`c.id = ${id}`])}`);
  }

  /** One uploader's listed items. */
  indexRowsOf(uploaderId: string): Promise<IndexRow[]> {
    return this.db.rows<IndexRow>(sql`
      select ${INDEX_COLUMNS} from contents c join users u on u.id = c.uploader_id
      where ${where([...listedConditions(), sql`c.uploader_id = ${uploaderId}`])}`);
  }

  /** The database clock now, as a feed snapshot (microsecond-precise UTC text). */
  async feedSnapshot(): Promise<string> {
    const [row] = await this.db.rows<{ t: string }>(sql`select to_char(now() at time zone 'UTC', ${UTC_TEXT_FORMAT}) as t`);
    return row.t;
  }

  /**
   * One feed bucket (feedBucketQuery). The followed uploaders' bucket is read first with each
   * uploader's walk capped near its share of the page; when some uploader filled its cap with
   * every row it gave, its next items might belong on the page too, and the bucket is read again
   * uncapped (an uploader that gave the page fewer rows than its cap read, left out only items
   * older than the page's last).
   */
  async feedBucket(q: FeedBucketQuery): Promise<FeedRow[]> {
    if (q.bucket !== 0) return this.db.rows<FeedRow>(feedBucketQuery(q));
    const capped = await this.db.rows<FeedRow & { per_uploader: number }>(feedBucketQuery(q, true));
    const cap = capped[0]?.per_uploader ?? q.limit;
    const given = new Map<string, number>();
    for (const row of capped) given.set(row.uploader_id, (given.get(row.uploader_id) ?? 0) + 1);
    const cutShort = cap < q.limit && [...given.values()].some((n) => n >= cap);
    // The rows keep their per_uploader column: copying each row without it costs more than it is worth.
    return cutShort ? this.db.rows<FeedRow>(feedBucketQuery(q, false)) : capped;
  }

  /**
   * Published items taken by `GET /all`'s search terms and filters and, when given, `/completed`'s
   * viewport, newest first, after the keyset `after` (a saved search's matches: the same
   * conditions as those listings, so they list the same items).
   */
  publishedMatching(
    match: { searchTerms: string[]; filters: ListingFilters; viewport: Viewport | null },
    after: { createdKey: string; id: string } | null,
    limit: number,
    hiddenUploaders: readonly string[] = [],
  ): Promise<FeedRow[]> {
    const conditions: SQL[] = [...listedConditions(), sql`c.status = 'completed'`, ...searchConditions(match.searchTerms), ...filterConditions(match.filters)];
    if (match.viewport) conditions.push(...viewportConditions(match.viewport));
    // The items of the users the viewer blocked (CONTRACT §21; bounded by MAX_BLOCKS_PER_USER).
    if (hiddenUploaders.length) conditions.push(sql`c.uploader_id not in (${sqlList(hiddenUploaders)})`);
    if (after) conditions.push(sql`(c.created_at, c.id) < ((${after.createdKey}::timestamp at time zone 'UTC'), ${after.id}::uuid)`);
    return this.db.rows<FeedRow>(sql`
      select ${CONTENT_COLUMNS}, to_char(c.created_at at time zone 'UTC', ${UTC_TEXT_FORMAT}) as created_key
      from contents c join users u on u.id = c.uploader_id
      where ${where(conditions)}
      order by c.created_at desc, c.id desc
      limit ${limit}`);
  }
}
