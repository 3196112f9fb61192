// `GET /all` (filtered, sorted, paged listing) and `GET /completed` (published items, optionally
// inside a map viewport). Every filter is a parameterised SQL fragment; sort columns come from a
// whitelist, so no client text ever becomes SQL.
import { sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import { can, type Caller } from '../auth/caller.js';
import { CONTENT_COLUMNS, textArray } from './repository.js';
import type { CompletedQuery, ListAllQuery } from './schemas.js';
import { LIMITS } from './schemas.js';
import type { ContentRow } from './serialise.js';
import { ADMIN_CONTENT_PERMISSION, viewerOf, type ContentService } from './service.js';
import { escapeLike, foldForSearch, type Language } from './values.js';
import { viewportAround } from './viewport.js';

/**
 * One `search_text LIKE '%term%'` per whitespace-separated term (all must match), on the folded
 * text, so `can ho` finds `Căn hộ` and word order does not matter. The pg_trgm GIN index on
 * search_text serves the terms of 3+ characters.
 */
export function searchConditions(search: string | undefined): SQL[] {
  if (!search) return [];
  const terms = [...new Set(foldForSearch(search).split(' ').filter(Boolean))].slice(0, LIMITS.searchTerms);
  // A term under 3 characters has no trigram: as a LIKE it would make the GIN index scan every
  // entry (seconds at 100,000 items), so it is checked with strpos on the rows the other
  // conditions leave, which no index is asked to serve.
  return terms.map((term) =>
    [...term].length >= 3 ? sql`c.search_text like ${`%${escapeLike(term)}%`}` : sql`strpos(c.search_text, ${term}) > 0`,
  );
}

const where = (conditions: SQL[]): SQL => sql.join(conditions, sql` and `);

/** `total` counts matches up to this many (docs/content.md). */
export const COUNT_CAP = 10_000;

export class ContentListings {
  constructor(
    private readonly app: AppContext,
    private readonly content: ContentService,
  ) {}

  /**
   * One page and the number of matches, counted up to COUNT_CAP: counting every match of an
   * unselective search ("can ho" is in most Vietnamese listings) would read most of the table on
   * every request, while a page needs only its rows. `hasMore` is exact (one extra row is read).
   */
  private async page(conditions: SQL[], order: SQL, limit: number, offset: number): Promise<{ rows: ContentRow[]; total: number; hasMore: boolean }> {
    const filter = where(conditions);
    const rows = await this.app.database.rows<ContentRow>(sql`
      select ${CONTENT_COLUMNS} from contents c join users u on u.id = c.uploader_id
      where ${filter} order by ${order} limit ${limit + 1} offset ${offset}`);
    const hasMore = rows.length > limit;
    if (hasMore) rows.pop();
    // The count is needed only when this page does not already tell it.
    let total = offset + rows.length;
    if (hasMore || (rows.length === 0 && offset > 0)) {
      const [counted] = await this.app.database.rows<{ total: number }>(
        sql`select count(*)::int as total from (select 1 from contents c where ${filter} limit ${COUNT_CAP}) as capped`);
      total = Math.max(Number(counted.total), offset + rows.length + (hasMore ? 1 : 0));
    }
    return { rows, total, hasMore };
  }

  /**
   * Everyone sees completed items; a signed-in caller also sees their own items in any state;
   * holders of `update:any_content` see every live item.
   */
  async listAll(caller: Caller | null, q: ListAllQuery) {
    const conditions: SQL[] = [sql`c.deleted_at is null`];
    if (!caller) conditions.push(sql`c.status = 'completed'`);
    else if (!can(caller, ADMIN_CONTENT_PERMISSION)) conditions.push(sql`(c.status = 'completed' or c.uploader_id = ${caller.userId})`);
    conditions.push(...searchConditions(q.search));
    if (q.lang) conditions.push(sql`${q.lang} = any(c.langs)`);
    if (q.price_from !== undefined) conditions.push(sql`c.price >= ${q.price_from}`);
    if (q.price_to !== undefined) conditions.push(sql`c.price <= ${q.price_to}`);
    if (q.area_from !== undefined) conditions.push(sql`c.area >= ${q.area_from}`);
    if (q.area_to !== undefined) conditions.push(sql`c.area <= ${q.area_to}`);
    if (q.unit_price) conditions.push(sql`c.unit_price = ${q.unit_price}`);
    if (q.unit_area) conditions.push(sql`c.unit_area = ${q.unit_area}`);
    // amenities: the item has every one listed; apartment_type / project_status: any one listed.
    if (q.amenities?.length) conditions.push(sql`c.amenities @> ${textArray(q.amenities)}`);
    if (q.apartment_type?.length) conditions.push(sql`c.facet_apartment_types && ${textArray(q.apartment_type.map((v) => v.toLowerCase()))}`);
    if (q.project_status?.length) conditions.push(sql`c.facet_project_statuses && ${textArray(q.project_status.map((v) => v.toLowerCase()))}`);
    if (q.created_at_start_date) conditions.push(sql`c.created_at >= ${q.created_at_start_date.toISOString()}::timestamptz`);
    if (q.created_at_end_date) conditions.push(sql`c.created_at <= ${q.created_at_end_date.toISOString()}::timestamptz`);

    const direction = sql.raw(q.sort === 'asc' ? 'asc' : 'desc');
    const order = sql`c.${sql.raw(q.column)} ${direction}, c.id ${direction}`;
    const offset = (q.page - 1) * q.per_page;
    const { rows, total, hasMore } = await this.page(conditions, order, q.per_page, offset);
    const viewer = viewerOf(caller);
    return {
      item: rows.map((r) => this.content.serialiser.listingItem(r, viewer, q.lang)),
      hasMore,
      total,
    };
  }

  /** Published items, newest first, optionally inside the map viewport around latitude/longitude at zoom_level. */
  async listCompleted(caller: Caller | null, q: CompletedQuery, lang: Language) {
    const conditions: SQL[] = [sql`c.deleted_at is null`, sql`c.status = 'completed'`, ...searchConditions(q.search)];
    if (q.latitude !== undefined && q.longitude !== undefined) {
      const v = viewportAround(q.latitude, q.longitude, q.zoom_level);
      conditions.push(sql`c.latitude is not null and c.latitude between ${v.south} and ${v.north}`);
      conditions.push(
        v.west <= v.east
          ? sql`c.longitude between ${v.west} and ${v.east}`
          : sql`(c.longitude >= ${v.west} or c.longitude <= ${v.east})`,
      );
    }
    const offset = (q.page - 1) * q.per_page;
    const { rows, total } = await this.page(conditions, sql`c.created_at desc, c.id desc`, q.per_page, offset);
    const viewer = viewerOf(caller);
    return {
      items: rows.map((r) => this.content.serialiser.completedItem(r, viewer, lang)),
      total,
      page: q.page,
      per_page: q.per_page,
      total_pages: Math.ceil(total / q.per_page),
    };
  }
}
