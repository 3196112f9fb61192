// The queries of saved searches (migration 0010): the searches themselves, and the page of
// published items that match one (the filter fragments of `GET /all`, so both list the same items).
import { sql, type SQL } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { jsonb } from '../db/sql-fragments.js';
import { CONTENT_COLUMNS, textArray } from '../content/content-repository.js';
import { filterConditions, searchConditions, viewportConditions, where, type FeedRow } from '../content/listing-repository.js';
import type { MatchableSearch } from './matchable.js';
import type { NotifyMode, SavedSearchFilters } from './schemas.js';

export interface SavedSearchRow {
  id: string;
  user_id: string;
  name: string;
  filters: SavedSearchFilters;
  notify: NotifyMode;
  created_at: Date;
}

export interface NewSavedSearch {
  id: string;
  userId: string;
  name: string;
  filters: SavedSearchFilters;
  notify: NotifyMode;
  matchable: MatchableSearch;
}

const COLUMNS = sql`id, user_id, name, filters, notify, created_at`;
/** Microsecond-precise UTC text of created_at (the matches cursor's key), as the feed's. */
const CURSOR_TIMESTAMP_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.US';

const cube = (box: [number[], number[]]): SQL =>
  sql`cube(${`{${box[0].join(',')}}`}::float8[], ${`{${box[1].join(',')}}`}::float8[])`;

export class SavedSearchRepository extends Repository {
  /** Holds, until the transaction ends, the lock that serialises one user's creations (the per-user cap). */
  async lockUser(userId: string): Promise<void> {
    await this.db.rows(sql`select pg_advisory_xact_lock(hashtextextended(${`saved_searches:${userId}`}, 0))`);
  }

  async countFor(userId: string): Promise<number> {
    const [row] = await this.db.rows<{ n: number }>(sql`select count(*)::int as n from saved_searches where user_id = ${userId}`);
    return row.n;
  }

  async insert(s: NewSavedSearch): Promise<SavedSearchRow> {
    const m = s.matchable;
    const [row] = await this.db.rows<SavedSearchRow>(sql`
      insert into saved_searches (id, user_id, name, filters, notify, bounds, unit_price, unit_area, amenities,
        apartment_types, project_statuses, search_terms, south, north, west, east)
      values (${s.id}, ${s.userId}, ${s.name}, ${jsonb(s.filters)}, ${s.notify}, ${cube(m.box)}, ${m.unitPrice}, ${m.unitArea},
        ${textArray(m.amenities)}, ${textArray(m.apartmentTypes)}, ${textArray(m.projectStatuses)}, ${textArray(m.searchTerms)},
        ${m.viewport?.south ?? null}, ${m.viewport?.north ?? null}, ${m.viewport?.west ?? null}, ${m.viewport?.east ?? null})
      returning ${COLUMNS}`);
    return row;
  }

  /** The user's searches, newest first. */
  listFor(userId: string): Promise<SavedSearchRow[]> {
    return this.db.rows<SavedSearchRow>(sql`
      select ${COLUMNS} from saved_searches where user_id = ${userId} order by created_at desc, id desc`);
  }

  async findOwn(id: string, userId: string): Promise<SavedSearchRow | null> {
    const [row] = await this.db.rows<SavedSearchRow>(sql`select ${COLUMNS} from saved_searches where id = ${id} and user_id = ${userId}`);
    return row ?? null;
  }

  /** Deletes the user's search; false when they have none with this id. */
  async deleteOwn(id: string, userId: string): Promise<boolean> {
    const rows = await this.db.rows(sql`delete from saved_searches where id = ${id} and user_id = ${userId} returning id`);
    return rows.length > 0;
  }

  /**
   * Published items matching the search's filters, newest first, after the cursor's item: the
   * conditions of `GET /all` (filterConditions, searchConditions) and of `/completed`'s viewport.
   */
  matchingPage(m: MatchableSearch, filters: SavedSearchFilters, after: { createdKey: string; id: string } | null, limit: number): Promise<FeedRow[]> {
    const conditions: SQL[] = [
      sql`c.deleted_at is null`,
      sql`c.status = 'completed'`,
      ...searchConditions(m.searchTerms),
      ...filterConditions(filters),
    ];
    if (m.viewport) conditions.push(...viewportConditions(m.viewport));
    if (after) conditions.push(sql`(c.created_at, c.id) < ((${after.createdKey}::timestamp at time zone 'UTC'), ${after.id}::uuid)`);
    return this.db.rows<FeedRow>(sql`
      select ${CONTENT_COLUMNS}, to_char(c.created_at at time zone 'UTC', ${CURSOR_TIMESTAMP_FORMAT}) as created_key
      from contents c join users u on u.id = c.uploader_id
      where ${where(conditions)}
      order by c.created_at desc, c.id desc
      limit ${limit}`);
  }
}
