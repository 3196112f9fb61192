// The listing queries on `contents` (with each item's uploader): the filtered `GET /all` page, the
// `GET /completed` page and the buckets of the personal feed. Every filter is a parameterised SQL
// fragment; the sort column comes from a whitelist (SORT_COLUMNS), so no client text becomes SQL.
import { sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/client.js';
import { CONTENT_COLUMNS, textArray, type ContentRow } from './content-repository.js';
import type { ListAllQuery } from './schemas.js';
import { escapeLike } from './values.js';
import type { Viewport } from './viewport.js';

/** `total` counts matches up to this many (docs/content.md). */
export const COUNT_CAP = 10_000;

/** Which live items a listing shows: published ones, plus the caller's own, or every one. */
export type ListingVisibility = { kind: 'published' } | { kind: 'published-or-own'; userId: string } | { kind: 'every' };

/** The filters of `GET /all` besides search, as its query gives them. */
export type ListingFilters = Pick<
  ListAllQuery,
  | 'lang' | 'price_from' | 'price_to' | 'area_from' | 'area_to' | 'unit_price' | 'unit_area'
  | 'amenities' | 'apartment_type' | 'project_status' | 'created_at_start_date' | 'created_at_end_date'
>;

export interface ListingPage {
  rows: ContentRow[];
  /** Matches, counted up to COUNT_CAP. */
  total: number;
  hasMore: boolean;
}

/** A feed row with its created_at as microsecond-precise UTC text (the cursor's key). */
export type FeedRow = ContentRow & { created_key: string };

/** One bucket of the feed (see feed.ts) within a snapshot, after the cursor's item when given. */
export interface FeedBucketQuery {
  bucket: 0 | 1 | 2;
  userId: string;
  /** Snapshot time, as FEED_TIMESTAMP_FORMAT text. */
  snapshot: string;
  freshWindowDays: number;
  popularMinReactions: number;
  after: { createdKey: string; id: string } | null;
  limit: number;
}

/** Microsecond-precise UTC timestamp text, as PostgreSQL writes and reads it back exactly. */
const FEED_TIMESTAMP_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.US';

export const where = (conditions: SQL[]): SQL => sql.join(conditions, sql` and `);

/**
 * One `search_text LIKE '%term%'` per term (all must match), on the folded text. The pg_trgm GIN
 * index on search_text serves the terms of 3+ characters; a shorter term has no trigram: as a
 * LIKE it would make the GIN index scan every entry (seconds at 100,000 items), so it is checked
 * with strpos on the rows the other conditions leave, which no index is asked to serve.
 */
export const searchConditions = (terms: string[]): SQL[] =>
  terms.map((term) =>
    [...term].length >= 3 ? sql`c.search_text like ${`%${escapeLike(term)}%`}` : sql`strpos(c.search_text, ${term}) > 0`,
  );

function visibilityCondition(visibility: ListingVisibility): SQL[] {
  switch (visibility.kind) {
    case 'published':
      return [sql`c.status = 'completed'`];
    case 'published-or-own':
      return [sql`(c.status = 'completed' or c.uploader_id = ${visibility.userId})`];
    case 'every':
      return [];
  }
}

export function filterConditions(f: ListingFilters): SQL[] {
  const conditions: SQL[] = [];
  if (f.lang) conditions.push(sql`${f.lang} = any(c.langs)`);
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

export function viewportConditions(v: Viewport): SQL[] {
  return [
    sql`c.latitude is not null and c.latitude between ${v.south} and ${v.north}`,
    v.west <= v.east ? sql`c.longitude between ${v.west} and ${v.east}` : sql`(c.longitude >= ${v.west} or c.longitude <= ${v.east})`,
  ];
}

export class ContentListingRepository {
  constructor(private readonly db: Queryable) {}

  /** A page of `GET /all`: live items the visibility allows, matching every filter and search term. */
  async filteredPage(
    visibility: ListingVisibility,
    searchTerms: string[],
    filters: ListingFilters,
    sort: { column: ListAllQuery['column']; direction: 'asc' | 'desc' },
    limit: number,
    offset: number,
  ): Promise<ListingPage> {
    const conditions = [sql`c.deleted_at is null`, ...visibilityCondition(visibility), ...searchConditions(searchTerms), ...filterConditions(filters)];
    const direction = sql.raw(sort.direction === 'asc' ? 'asc' : 'desc');
    const order = sql`c.${sql.raw(sort.column)} ${direction}, c.id ${direction}`;
    return this.page(conditions, order, limit, offset);
  }

  /** A page of `GET /completed`: published items matching the search, inside the viewport when given, newest first. */
  async publishedPage(searchTerms: string[], viewport: Viewport | null, limit: number, offset: number): Promise<ListingPage> {
    const conditions = [sql`c.deleted_at is null`, sql`c.status = 'completed'`, ...searchConditions(searchTerms)];
    if (viewport) conditions.push(...viewportConditions(viewport));
    return this.page(conditions, sql`c.created_at desc, c.id desc`, limit, offset);
  }

  /**
   * One page and the number of matches, counted up to COUNT_CAP: counting every match of an
   * unselective search ("can ho" is in most Vietnamese listings) would read most of the table on
   * every request, while a page needs only its rows. `hasMore` is exact (one extra row is read).
   */
  private async page(conditions: SQL[], order: SQL, limit: number, offset: number): Promise<ListingPage> {
    const filter = where(conditions);
    const rows = await this.db.rows<ContentRow>(sql`
      select ${CONTENT_COLUMNS} from contents c join users u on u.id = c.uploader_id
      where ${filter} order by ${order} limit ${limit + 1} offset ${offset}`);
    const hasMore = rows.length > limit;
    if (hasMore) rows.pop();
    // The count is needed only when this page does not already tell it.
    let total = offset + rows.length;
    if (hasMore || (rows.length === 0 && offset > 0)) {
      const [counted] = await this.db.rows<{ total: number }>(
        sql`select count(*)::int as total from (select 1 from contents c where ${filter} limit ${COUNT_CAP}) as capped`);
      total = Math.max(counted.total, offset + rows.length + (hasMore ? 1 : 0));
    }
    return { rows, total, hasMore };
  }

  /** The database clock now, as a feed snapshot (microsecond-precise UTC text). */
  async feedSnapshot(): Promise<string> {
    const [row] = await this.db.rows<{ t: string }>(sql`select to_char(now() at time zone 'UTC', ${FEED_TIMESTAMP_FORMAT}) as t`);
    return row.t;
  }

  /**
   * The published items of one feed bucket, newest first, as of the snapshot: items created,
   * follows made and reactions given after it are not seen. The caller's own items are left out.
   *   0. items by uploaders the caller follows;
   *   1. others created within freshWindowDays before the snapshot with popularMinReactions reactions;
   *   2. every other item.
   */
  async feedBucket(q: FeedBucketQuery): Promise<FeedRow[]> {
    const at = sql`(${q.snapshot}::timestamp at time zone 'UTC')`;
    const followed = sql`c.uploader_id in (select f.following_id from follows f where f.follower_id = ${q.userId} and f.created_at <= ${at})`;
    const popular = sql`(c.created_at > ${at} - ${`${q.freshWindowDays} days`}::interval
      and (select count(*) from content_reactions r where r.content_id = c.id and r.created_at <= ${at}) >= ${q.popularMinReactions})`;
    const buckets: SQL[] = [followed, sql`not ${followed} and ${popular}`, sql`not ${followed} and not ${popular}`];
    const conditions: SQL[] = [
      sql`c.deleted_at is null`,
      sql`c.status = 'completed'`,
      sql`c.created_at <= ${at}`,
      sql`c.uploader_id <> ${q.userId}`,
      buckets[q.bucket],
    ];
    if (q.after) {
      conditions.push(sql`(c.created_at, c.id) < ((${q.after.createdKey}::timestamp at time zone 'UTC'), ${q.after.id}::uuid)`);
    }
    return this.db.rows<FeedRow>(sql`
      select ${CONTENT_COLUMNS}, to_char(c.created_at at time zone 'UTC', ${FEED_TIMESTAMP_FORMAT}) as created_key
      from contents c join users u on u.id = c.uploader_id
      where ${where(conditions)}
      order by c.created_at desc, c.id desc
      limit ${q.limit}`);
  }
}
