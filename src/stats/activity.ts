// Where the daily numbers come from, as one SQL source of (user_id, day, posts, followers,
// following, reactions) rows, one per event. Shared by the live path (today, and days not yet
// rolled up) and the roll-up job, so both count the same way:
// - posts: content items the user created that day (soft-deleted ones excluded);
// - followers: follows of the user created that day (still standing; an unfollow removes the row);
// - following: follows the user made that day;
// - reactions: reactions other users gave that day to the user's (not deleted) content.
// Days are UTC calendar days.
import { sql, type SQL } from 'drizzle-orm';

/** timestamptz of midnight UTC starting `day` (YYYY-MM-DD). */
export const utcMidnight = (day: string): SQL => sql`((${day}::date)::timestamp at time zone 'UTC')`;

const utcDay = (column: SQL): SQL => sql`((${column} at time zone 'UTC')::date)`;

/**
 * Events in [fromDay, toDayExclusive) — both YYYY-MM-DD — for one user or (userId null) everyone.
 */
export function activityEvents(fromDay: string, toDayExclusive: string, userId: string | null): SQL {
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

/** Reactions the user received before `beforeDay` (and from `fromDay` on, when given). */
export function reactionsReceivedBefore(userId: string, beforeDay: string, fromDay: string | null): SQL {
  return sql`
    select count(*)::int as n from content_reactions r join contents c on c.id = r.content_id
    where c.uploader_id = ${userId} and c.deleted_at is null and r.user_id <> c.uploader_id
      and r.created_at < ${utcMidnight(beforeDay)}
      ${fromDay === null ? sql`` : sql`and r.created_at >= ${utcMidnight(fromDay)}`}`;
}
