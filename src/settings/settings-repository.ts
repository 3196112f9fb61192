// The queries of per-user settings (table user_settings of migration 0005).
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';

export class SettingsRepository extends Repository {
  /** The values the user changed, by dotted path; undefined when they never changed one. */
  async findOverrides(userId: string): Promise<Record<string, unknown> | undefined> {
    const [row] = await this.db.rows<{ overrides: Record<string, unknown> }>(sql`
      select overrides from user_settings where user_id = ${userId}`);
    return row?.overrides;
  }

  /**
   * Merges `changes` (dotted path → value) over the stored overrides in one statement, so
   * concurrent updates of different paths never overwrite each other. Answers the time of the change.
   */
  async mergeOverrides(userId: string, changes: Record<string, boolean | number>): Promise<Date> {
    const [row] = await this.db.rows<{ updated_at: Date }>(sql`
      insert into user_settings (user_id, overrides) values (${userId}, ${JSON.stringify(changes)}::jsonb)
      on conflict (user_id) do update
        set overrides = user_settings.overrides || excluded.overrides, updated_at = now()
      returning updated_at`);
    return row.updated_at;
  }

  /** Erasure (CONTRACT §22): the user's settings. */
  async deleteOf(userId: string): Promise<void> {
    await this.db.rows(sql`delete from user_settings where user_id = ${userId}`);
  }
}
