// The durable part of presence: when each user was last seen (their last /chat socket went), and
// who may see it (reads chat rooms, messages and user_settings: CONTRACT §19 "Presence is private").
import { sql, type SQL } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { sqlList } from '../db/sql-fragments.js';

/** privacy.show_presence of a user (stored overrides by dotted path; default true). */
const showsPresence = (userId: SQL) =>
  sql`coalesce((select (s.overrides->>'privacy.show_presence')::boolean from user_settings s where s.user_id = ${userId}), true)`;

export class PresenceRepository extends Repository {
  async lastSeenOf(userIds: string[]): Promise<Map<string, Date>> {
    if (!userIds.length) return new Map();
    const rows = await this.db.rows<{ user_id: string; last_seen_at: Date }>(sql`
      select user_id, last_seen_at from user_presence where user_id in (${sqlList(userIds)})`);
    return new Map(rows.map((r) => [r.user_id, r.last_seen_at]));
  }

  /**
   * The chat rooms in which the user's presence is shown (CONTRACT §19): rooms of theirs that they
   * created or sent a message in, none while their privacy.show_presence is off (unless
   * `evenIfHidden`: the rooms to tell that it was just turned off).
   */
  async presenceRoomsOf(userId: string, limit: number, options: { evenIfHidden?: boolean } = {}): Promise<string[]> {
    const rows = await this.db.rows<{ room_id: string }>(sql`
      select m.room_id from chat_room_members m join chat_rooms r on r.id = m.room_id
      where m.user_id = ${userId}
        and ${options.evenIfHidden ? sql`true` : showsPresence(sql`${userId}::uuid`)}
        and (r.created_by = m.user_id or exists (select 1 from chat_messages cm where cm.room_id = m.room_id and cm.sender_id = m.user_id))
      limit ${limit}`);
    return rows.map((r) => r.room_id);
  }

  /**
   * Of `userIds`, those whose presence `viewerId` may see: themself, and users with
   * privacy.show_presence on who share with the viewer a room they created or sent a message in.
   */
  async visibleTo(viewerId: string, userIds: string[]): Promise<Set<string>> {
    if (!userIds.length) return new Set();
    const rows = await this.db.rows<{ user_id: string }>(sql`
      select u.id as user_id from users u
      where u.id in (${sqlList(userIds)})
        and (u.id = ${viewerId}::uuid or (${showsPresence(sql`u.id`)} and exists (
          select 1 from chat_room_members mine
          join chat_room_members theirs on theirs.room_id = mine.room_id and theirs.user_id = u.id
          join chat_rooms r on r.id = mine.room_id
          where mine.user_id = ${viewerId}
            and (r.created_by = u.id or exists (select 1 from chat_messages cm where cm.room_id = r.id and cm.sender_id = u.id)))))`);
    return new Set(rows.map((r) => r.user_id));
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
