// The queries of saved-search matching (migration 0010): the queue of published items not matched
// yet, the one statement that finds the searches a new item matches, the (search, item) match
// records, and the daily digests.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { PUBLISHED } from '../content/index.js';
import { textArray } from '../db/sql-fragments.js';
import { NO_LOCATION } from './matchable.js';
import type { NotifyMode } from './schemas.js';

export interface SearchHit {
  id: string;
  user_id: string;
  name: string;
  notify: Exclude<NotifyMode, 'off'>;
  uploader_id: string;
}

export interface PendingDigest {
  saved_search_id: string;
  user_id: string;
  name: string;
}

export class SavedSearchMatchRepository extends Repository {
  /** Takes an item off the queue (in the caller's transaction); false when it was not (or no longer) queued. */
  async dequeue(contentId: string): Promise<boolean> {
    const rows = await this.db.rows(sql`delete from saved_search_queue where content_id = ${contentId} returning content_id`);
    return rows.length > 0;
  }

  /** Queued items, oldest first. */
  async queued(limit: number): Promise<string[]> {
    const rows = await this.db.rows<{ content_id: string }>(sql`
      select content_id from saved_search_queue order by queued_at, content_id limit ${limit}`);
    return rows.map((r) => r.content_id);
  }

  /**
   * The searches (instant or daily) a live published item matches, not its uploader's own: one
   * GiST lookup of the item's point (price, area, latitude, longitude) in the searches' boxes,
   * then the remaining filters on the searches found, with /all's semantics (currency and unit
   * equal, every amenity, any listed type and status, every search term a substring of the
   * folded text, inside the viewport).
   */
  searchesMatching(contentId: string): Promise<SearchHit[]> {
    return this.db.rows<SearchHit>(sql`
      select s.id, s.user_id, s.name, s.notify, c.uploader_id
      from contents c
      join saved_searches s on s.notify <> 'off'
        and s.bounds @> cube(array[c.price, c.area, coalesce(c.latitude, ${NO_LOCATION}), coalesce(c.longitude, ${NO_LOCATION})]::float8[])
      where c.id = ${contentId} and c.deleted_at is null and ${PUBLISHED}
        and s.user_id <> c.uploader_id
        and (s.unit_price is null or s.unit_price = c.unit_price)
        and (s.unit_area is null or s.unit_area = c.unit_area)
        and s.amenities <@ c.amenities
        and (s.apartment_types = '{}' or s.apartment_types && c.facet_apartment_types)
        and (s.project_statuses = '{}' or s.project_statuses && c.facet_project_statuses)
        and not exists (select 1 from unnest(s.search_terms) as t(term) where strpos(c.search_text, t.term) = 0)
        and (s.south is null or (c.latitude between s.south and s.north
          and case when s.west <= s.east then c.longitude between s.west and s.east
                   else c.longitude >= s.west or c.longitude <= s.east end))`);
  }

  /**
   * Records that each search matched the item; `notified` stamps them as told (instant), else they
   * wait for the digest. Returns the searches newly recorded: a pair recorded before (a second
   * matching run) is left as it is and not returned.
   */
  async record(searchIds: string[], contentId: string, notified: boolean): Promise<string[]> {
    if (!searchIds.length) return [];
    const rows = await this.db.rows<{ saved_search_id: string }>(sql`
      insert into saved_search_matches (saved_search_id, content_id, notified_at)
      select unnest(${textArray(searchIds)}::uuid[]), ${contentId}, case when ${notified} then now() end
      on conflict (saved_search_id, content_id) do nothing
      returning saved_search_id`);
    return rows.map((r) => r.saved_search_id);
  }

  /** Daily searches with matches not told yet, at most `limit`. */
  pendingDigests(limit: number): Promise<PendingDigest[]> {
    return this.db.rows<PendingDigest>(sql`
      select s.id as saved_search_id, s.user_id, s.name from saved_searches s
      where s.notify = 'daily'
        and exists (select 1 from saved_search_matches m where m.saved_search_id = s.id and m.notified_at is null)
      order by s.id
      limit ${limit}`);
  }

  /**
   * Stamps every untold match of the search as told, in the caller's transaction; returns their
   * items, newest match first (none when another run took them first).
   */
  async markDigested(savedSearchId: string): Promise<string[]> {
    const rows = await this.db.rows<{ content_id: string; matched_at: Date }>(sql`
      update saved_search_matches set notified_at = now()
      where saved_search_id = ${savedSearchId} and notified_at is null
      returning content_id, matched_at`);
    return rows.sort((a, b) => b.matched_at.getTime() - a.matched_at.getTime()).map((r) => r.content_id);
  }
}
