// The reads of the live feed (CONTRACT §15) on `contents`: which of a socket's ids it may watch,
// and the current counts of watched items. One statement for a whole set of ids each.
import { sql } from 'drizzle-orm';
import { Repository } from '../../db/repository.js';
import { textArray } from '../../db/sql-fragments.js';
import { PUBLISHED } from '../listing-repository.js';
import type { ContentStats } from './schemas.js';

export class LiveContentRepository extends Repository {
  /**
   * The ids among `ids` of live items the viewer may see: published ones, their own in any state,
   * and every one when `everything` (holders of update:any_content).
   */
  async viewableIds(ids: string[], viewerId: string, everything: boolean): Promise<string[]> {
    if (!ids.length) return [];
    const rows = await this.db.rows<{ id: string }>(sql`
      select c.id from contents c
      where c.id = any(${textArray(ids)}::uuid[]) and c.deleted_at is null
        and (${PUBLISHED} or c.uploader_id = ${viewerId} or ${everything})`);
    return rows.map((r) => r.id);
  }

  /** The counts of the live items among `ids`. */
  async stats(ids: string[]): Promise<ContentStats[]> {
    if (!ids.length) return [];
    return this.db.rows<ContentStats>(sql`
      select id as "contentId", reaction_count, comment_count from contents
      where id = any(${textArray(ids)}::uuid[]) and deleted_at is null`);
  }
}
