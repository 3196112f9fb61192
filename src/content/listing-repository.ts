// The queries of listed items on `contents` (with each item's uploader): the rows that feed the
// listing index (its load and its item reloads: it alone answers `/all`, `/completed` and the map
// clusters), the buckets of the personal feed, and the new items a saved search matches. Every
// filter is a parameterised SQL fragment, so no client text becomes SQL.
import { sql, type SQL } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { sqlList } from '../db/sql-fragments.js';
import { textArray } from '../db/sql-fragments.js';
import { CONTENT_COLUMNS, type ContentRow } from './content-repository.js';
import { LIMITS } from './schemas.js';
import { escapeLike, foldForSearch } from './values.js';
import type { Viewport } from './search-index/viewport.js';
import type { IndexRow, ListingFilters } from './search-index/index-types.js';

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

/** The columns of a row the listing index keeps (IndexRow). */
export const INDEX_COLUMNS = sql`${CONTENT_COLUMNS}, c.langs, c.facet_apartment_types, c.facet_project_statuses, c.search_text,
  (extract(epoch from c.created_at) * 1000000)::float8 as created_us,
  (extract(epoch from c.updated_at) * 1000000)::float8 as updated_us`;

/**
 * A saved search's text as the terms its SQL match takes, each of which must match: folded, so
 * `can ho` finds `Căn hộ`, split on whitespace, without repeats and at most LIMITS.searchTerms.
 */
export function searchTerms(search: string | undefined): string[] {
  if (!search) return [];
  return [...new Set(foldForSearch(search).split(' ').filter(Boolean))].slice(0, LIMITS.searchTerms);
}

/**
 * One `search_text LIKE '%term%'` per term (all must match), on the folded text. The pg_trgm GIN
 * index on search_text serves the terms of 3+ characters; a shorter term has no trigram: as a
 * LIKE it would make the GIN index scan every entry (seconds at 100,000 items), so it is checked
 * with strpos on the rows the other conditions leave, which no index is asked to serve.
 */
const searchConditions = (terms: string[]): SQL[] =>
  terms.map((term) => ([...term].length >= 3 ? sql`c.search_text like ${`%${escapeLike(term)}%`}` : sql`strpos(c.search_text, ${term}) > 0`));

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
  const conditions =
    q.bucket === 1 ? [...published, sql`not ${followed}`, ...popular, ...after] : [...published, sql`not ${followed}`, sql`not (${where(popular)})`, ...after];
  // The page's rows first, then their uploaders: the join may not change the walk.
  return sql`
    select ${columns}
    from (select c.* from contents c where ${where(conditions)} ${newestFirst}) c
    join users u on u.id = c.uploader_id
    ${newestFirst}`;
}

export class ContentListingRepository extends Repository {
  /** A page of every listed row, in id order after `afterId` (the listing index's load). */
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

  /** Those of the items `ids` that are listed (a snapshot's catch-up, index-sync.ts). */
  indexRows(ids: readonly string[]): Promise<IndexRow[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.db.rows<IndexRow>(sql`
      select ${INDEX_COLUMNS} from contents c join users u on u.id = c.uploader_id
      where ${where([...listedConditions(), sql`c.id = any(${textArray([...ids])}::uuid[])`])}`);
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
