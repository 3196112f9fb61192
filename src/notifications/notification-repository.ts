// Queries on the `notifications` table (migration 0009). The inbox reads join `users` for the
// actor's name and avatar, as comments do for their authors.
import { sql, type SQL } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { sqlList } from '../db/sql-fragments.js';
import type { KeysetPosition } from '../shared/cursor.js';
import type { NotificationType } from './types.js';

export interface NotificationRow {
  id: string;
  user_id: string;
  type: NotificationType;
  actor_id: string | null;
  actor_username: string | null;
  actor_given_name: string | null;
  actor_family_name: string | null;
  actor_picture: string | null;
  subject_type: string;
  subject_id: string;
  data: Record<string, unknown>;
  read_at: Date | null;
  created_at: Date;
}

interface NewNotification {
  id: string;
  userId: string;
  type: NotificationType;
  actorId: string | null;
  subjectType: string;
  subjectId: string;
  data: Record<string, unknown>;
  dedupeKey: string | null;
}

/** The inbox columns (with the actor's name and picture) of the rows `where` picks, newest first. */
const selectViews = (where: SQL, limit: number) => sql`
  select n.id, n.user_id, n.type, n.actor_id, a.username as actor_username, a.given_name as actor_given_name,
         a.family_name as actor_family_name, a.picture as actor_picture,
         n.subject_type, n.subject_id, n.data, n.read_at, n.created_at
  from notifications n left join users a on a.id = n.actor_id
  where ${where}
  order by n.created_at desc, n.id desc
  limit ${limit}`;

export class NotificationRepository extends Repository {
  /** Inserts one notification; a repeat of the same (user, dedupe key) is ignored. */
  /** One statement for all `rows` (at most a few hundred: 8 parameters each); a repeated dedupe key is skipped. */
  async insertMany(rows: NewNotification[]): Promise<void> {
    if (!rows.length) return;
    const values = rows.map(
      (row) => sql`(${row.id}, ${row.userId}, ${row.type}, ${row.actorId}, ${row.subjectType}, ${row.subjectId},
              ${JSON.stringify(row.data)}::jsonb, ${row.dedupeKey})`,
    );
    await this.db.rows(sql`
      insert into notifications (id, user_id, type, actor_id, subject_type, subject_id, data, dedupe_key)
      values ${sql.join(values, sql`, `)}
      on conflict (user_id, dedupe_key) where dedupe_key is not null do nothing`);
  }

  /**
   * Adds one reaction to the open group of `groupKey` (one notification per item and hour), or
   * opens a new group. A group whose hour is over is closed first, so it stays in the inbox as
   * it was. The unique (user, group_key) index makes concurrent reactions meet in one row. A bump
   * makes the notification new again: unread, at the top, pushed once more.
   */
  async addToReactionGroup(row: NewNotification & { groupKey: string; windowSeconds: number }): Promise<void> {
    await this.db.rows(sql`
      update notifications set group_key = null
      where user_id = ${row.userId} and group_key = ${row.groupKey}
        and group_started_at <= now() - make_interval(secs => ${row.windowSeconds})`);
    await this.db.rows(sql`
      insert into notifications (id, user_id, type, actor_id, subject_type, subject_id, data, group_key, group_started_at)
      values (${row.id}, ${row.userId}, ${row.type}, ${row.actorId}, ${row.subjectType}, ${row.subjectId},
              ${JSON.stringify({ ...row.data, count: 1 })}::jsonb, ${row.groupKey}, now())
      on conflict (user_id, group_key) where group_key is not null do update
        set actor_id = excluded.actor_id,
            data = notifications.data || excluded.data
                   || jsonb_build_object('count', coalesce((notifications.data->>'count')::int, 1) + 1),
            read_at = null, created_at = now(), pushed_at = null`);
  }

  /** The user's notifications, newest first, after `after`; `limit + 1` rows to know if more follow. */
  page(userId: string, after: KeysetPosition | null, limit: number): Promise<NotificationRow[]> {
    const where = after
      ? sql`n.user_id = ${userId} and (n.created_at, n.id) < (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)`
      : sql`n.user_id = ${userId}`;
    return this.db.rows<NotificationRow>(selectViews(where, limit + 1));
  }

  async unreadCount(userId: string): Promise<number> {
    const [row] = await this.db.rows<{ count: number }>(sql`
      select count(*)::int as count from notifications where user_id = ${userId} and read_at is null`);
    return row.count;
  }

  /** Marks the user's notifications read: those in `ids`, or all when ids is null. Others' ids match nothing. */
  async markRead(userId: string, ids: string[] | null): Promise<void> {
    if (ids !== null && !ids.length) return;
    const which = ids === null ? sql`true` : sql`id in (${sqlList(ids)})`;
    await this.db.rows(sql`
      update notifications set read_at = now() where user_id = ${userId} and read_at is null and ${which}`);
  }

  /** Deletes up to `limit` notifications created more than `days` days ago; answers how many. */
  async deleteOlderThan(days: number, limit: number): Promise<number> {
    const rows = await this.db.rows<{ id: string }>(sql`
      delete from notifications where id in (
        select id from notifications where created_at < now() - make_interval(days => ${days}) limit ${limit})
      returning id`);
    return rows.length;
  }

  /**
   * Claims up to `limit` notifications not pushed yet (stamps pushed_at) and answers them: every
   * node may call this, each row is answered to one caller only (SKIP LOCKED).
   */
  claimUnpushed(limit: number): Promise<NotificationRow[]> {
    return this.db.rows<NotificationRow>(sql`
      with picked as (
        select id from notifications where pushed_at is null
        order by created_at limit ${limit} for update skip locked
      ), claimed as (
        update notifications n set pushed_at = now() from picked where n.id = picked.id returning n.id
      )
      ${selectViews(sql`n.id in (select id from claimed)`, limit)}`);
  }

  /** Erasure (CONTRACT §22): the user's own notifications (others' that name them show the anonymised user). */
  async deleteAllOf(userId: string): Promise<void> {
    await this.db.rows(sql`delete from notifications where user_id = ${userId}`);
  }
}
