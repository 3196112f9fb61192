// The durable part of presence: when each user was last seen (their last /chat socket went).
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { sqlList } from '../db/sql-fragments.js';

export class PresenceRepository extends Repository {
  async lastSeenOf(userIds: string[]): Promise<Map<string, Date>> {
    if (!userIds.length) return new Map();
    const rows = await this.db.rows<{ user_id: string; last_seen_at: Date }>(sql`
      select user_id, last_seen_at from user_presence where user_id in (${sqlList(userIds)})`);
    return new Map(rows.map((r) => [r.user_id, r.last_seen_at]));
  }

  /** Stores `at` as the user's last sighting unless a later one is already stored. */
  async saveLastSeen(userId: string, at: Date): Promise<Date> {
    const [row] = await this.db.rows<{ last_seen_at: Date }>(sql`
      insert into user_presence (user_id, last_seen_at) values (${userId}, ${at.toISOString()}::timestamptz)
      on conflict (user_id) do update set last_seen_at = greatest(user_presence.last_seen_at, excluded.last_seen_at)
      returning last_seen_at`);
    return row.last_seen_at;
  }

  /** Erasure (CONTRACT §22): when the user was last seen. */
  async deleteOf(userId: string): Promise<void> {
    await this.db.rows(sql`delete from user_presence where user_id = ${userId}`);
  }
}
