// The queries of saved searches (migration 0010), the searches themselves. The page of published
// items that match one is the content domain's (ContentListingRepository.publishedMatching).
import { sql, type SQL } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { jsonb } from '../db/sql-fragments.js';
import { textArray } from '../db/sql-fragments.js';
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

const cube = (box: [number[], number[]]): SQL => sql`cube(${`{${box[0].join(',')}}`}::float8[], ${`{${box[1].join(',')}}`}::float8[])`;

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

  /** Erasure (CONTRACT §22): the user's saved searches (their matches go with them). */
  async deleteAllOf(userId: string): Promise<void> {
    await this.db.rows(sql`delete from saved_searches where user_id = ${userId}`);
  }
}
