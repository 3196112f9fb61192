// The queries of the daily statistics: daily_stats and its watermark (migration 0005), and the
// live counts taken from the source tables. The live counts stay here rather than on the
// contents, follows and reactions repositories because they are one aggregate over all three
// (a union grouped by day): split by owner, the roll-up could no longer insert a day's numbers
// with one statement, and the live path and the roll-up must count the same way.
//
// Where the numbers come from, as (user_id, day, posts, followers, following, reactions) rows,
// one per event:
// - posts: content items the user created that day (soft-deleted ones excluded);
// - followers: follows of the user created that day (still standing; an unfollow removes the row);
// - following: follows the user made that day;
// - reactions: reactions other users gave that day to the user's (not deleted) content.
// Days are UTC calendar days, `YYYY-MM-DD`.
import { sql, type SQL } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { addDays } from './days.js';

export interface DayCounts {
  posts: number;
  followers: number;
  following: number;
  reactions: number;
}

interface DayCountsRow extends DayCounts {
  day: string;
}

/** timestamptz of midnight UTC starting `day`. */
const utcMidnight = (day: string): SQL => sql`((${day}::date)::timestamp at time zone 'UTC')`;

const utcDay = (column: SQL): SQL => sql`((${column} at time zone 'UTC')::date)`;

/** Events in [fromDay, toDayExclusive) for one user or (userId null) everyone. */
function activityEvents(fromDay: string, toDayExclusive: string, userId: string | null): SQL {
  const lo = utcMidnight(fromDay);
  const hi = utcMidnight(toDayExclusive);
  const only = (column: SQL) => (userId === null ? sql`` : sql`and ${column} = ${userId}`);
  return sql`
    select c.uploader_id as user_id, ${utcDay(sql`c.created_at`)} as day, 1 as posts, 0 as followers, 0 as following, 0 as reactions
      from contents c
      where c.deleted_at is null and c.created_at >= ${lo} and c.created_at < ${hi} ${only(sql`c.uploader_id`)}
    union all
    select f.following_id, ${utcDay(sql`f.created_at`)}, 0, 1, 0, 0
      from follows f where f.created_at >= ${lo} and f.created_at < ${hi} ${only(sql`f.following_id`)}
    union all
    select f.follower_id, ${utcDay(sql`f.created_at`)}, 0, 0, 1, 0
      from follows f where f.created_at >= ${lo} and f.created_at < ${hi} ${only(sql`f.follower_id`)}
    union all
    select c.uploader_id, ${utcDay(sql`r.created_at`)}, 0, 0, 0, 1
      from content_reactions r join contents c on c.id = r.content_id
      where c.deleted_at is null and r.user_id <> c.uploader_id
        and r.created_at >= ${lo} and r.created_at < ${hi} ${only(sql`c.uploader_id`)}`;
}

export class StatsRepository extends Repository {
  /** The last day rolled up, or null before the first roll-up. */
  async rolledThrough(): Promise<string | null> {
    const [row] = await this.db.rows<{ day: string }>(sql`select rolled_through::text as day from daily_stats_watermark where id = 1`);
    return row?.day ?? null;
  }

  /** rolledThrough, holding the watermark row until the transaction ends (one roll-up at a time). */
  async lockRolledThrough(): Promise<string | null> {
    const [row] = await this.db.rows<{ day: string }>(sql`select rolled_through::text as day from daily_stats_watermark where id = 1 for update`);
    return row?.day ?? null;
  }

  async setRolledThrough(day: string): Promise<void> {
    await this.db.rows(sql`
      insert into daily_stats_watermark (id, rolled_through) values (1, ${day}::date)
      on conflict (id) do update set rolled_through = excluded.rolled_through, updated_at = now()`);
  }

  /** The time of the earliest activity there is, or null when there is none. */
  async earliestActivity(): Promise<Date | null> {
    const [row] = await this.db.rows<{ t: Date | null }>(sql`
      select least((select min(created_at) from contents), (select min(created_at) from follows),
                   (select min(created_at) from content_reactions)) as t`);
    return row?.t ?? null;
  }

  /** Counts the days fromDay..lastDay (both included) into daily_stats, replacing what was there. */
  async rollUp(fromDay: string, lastDay: string): Promise<void> {
    await this.db.rows(sql`delete from daily_stats where day >= ${fromDay}::date and day <= ${lastDay}::date`);
    await this.db.rows(sql`
      insert into daily_stats (user_id, day, posts, followers, following, reactions)
      select e.user_id, e.day, sum(e.posts), sum(e.followers), sum(e.following), sum(e.reactions)
      from (${activityEvents(fromDay, addDays(lastDay, 1), null)}) e
      group by e.user_id, e.day`);
  }

  /** The user's rolled-up days fromDay..toDay (both included); days without activity are absent. */
  async rolledUpDays(userId: string, fromDay: string, toDay: string): Promise<DayCountsRow[]> {
    return this.db.rows<DayCountsRow>(sql`
      select day::text as day, posts, followers, following, reactions from daily_stats
      where user_id = ${userId} and day >= ${fromDay}::date and day <= ${toDay}::date`);
  }

  /** The user's days in [fromDay, toDayExclusive) counted live; days without activity are absent. */
  async liveDays(userId: string, fromDay: string, toDayExclusive: string): Promise<DayCountsRow[]> {
    return this.db.rows<DayCountsRow>(sql`
      select e.day::text as day, sum(e.posts)::int as posts, sum(e.followers)::int as followers,
             sum(e.following)::int as following, sum(e.reactions)::int as reactions
      from (${activityEvents(fromDay, toDayExclusive, userId)}) e group by e.day`);
  }

  /** Reactions received on rolled-up days before `beforeDay`. */
  async rolledUpReactionsBefore(userId: string, beforeDay: string): Promise<number> {
    const [row] = await this.db.rows<{ n: number }>(sql`
      select coalesce(sum(reactions), 0)::int as n from daily_stats
      where user_id = ${userId} and day < ${beforeDay}::date`);
    return row.n;
  }

  /** Reactions the user received, counted live, before `beforeDay` (and from `fromDay` on, when given). */
  async liveReactionsBefore(userId: string, beforeDay: string, fromDay: string | null): Promise<number> {
    const [row] = await this.db.rows<{ n: number }>(sql`
      select count(*)::int as n from content_reactions r join contents c on c.id = r.content_id
      where c.uploader_id = ${userId} and c.deleted_at is null and r.user_id <> c.uploader_id
        and r.created_at < ${utcMidnight(beforeDay)}
        ${fromDay === null ? sql`` : sql`and r.created_at >= ${utcMidnight(fromDay)}`}`);
    return row.n;
  }

  /** Views, watch time and leads of the user's (not deleted) items per day, from the views' roll-up (migration 0038). */
  async viewDays(userId: string, fromDay: string, toDay: string): Promise<{ day: string; views: number; watch_seconds: number; leads: number }[]> {
    return this.db.rows(sql`
      select d.day::text as day, sum(d.views)::int as views, (sum(d.watch_ms) / 1000)::int as watch_seconds, sum(d.leads)::int as leads
      from content_view_days d join contents c on c.id = d.content_id
      where c.uploader_id = ${userId} and c.deleted_at is null and d.day >= ${fromDay}::date and d.day <= ${toDay}::date
      group by d.day`);
  }

  /** Erasure (CONTRACT §22): the user's daily statistics. */
  async deleteAllOf(userId: string): Promise<void> {
    await this.db.rows(sql`delete from daily_stats where user_id = ${userId}`);
  }
}
