// Daily statistics of one user (SPEC §2.6, CONTRACT §12). Days up to the roll-up watermark come
// from daily_stats; later days (today always) are counted live from the source tables.
// reactions_total is the running total of reactions received up to the end of each day;
// each *_growth is the sum of that column over the range.
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import { badRequest, notFound } from '../shared/errors.js';
import { activityEvents, reactionsReceivedBefore } from './activity.js';
import { addDays, daysBetween, maxDay, midnightIso, minDay } from './days.js';
import { rolledThrough } from './rollup.js';
import { MAX_RANGE_DAYS, type StatsByDay } from './schemas.js';

interface DayCounts {
  posts: number;
  followers: number;
  following: number;
  reactions: number;
}

const ZERO: DayCounts = { posts: 0, followers: 0, following: 0, reactions: 0 };

export class StatsService {
  constructor(private readonly app: AppContext) {}

  async byDay(userId: string, startDate: string, endDate: string): Promise<StatsByDay> {
    if (endDate < startDate) {
      throw badRequest('stats.error.invalid_range', 'end_date must not be before start_date', { field: 'end_date', constraint: '>= start_date' });
    }
    if (daysBetween(startDate, endDate) + 1 > MAX_RANGE_DAYS) {
      throw badRequest('stats.error.range_too_long', `At most ${MAX_RANGE_DAYS} days per request`, {
        field: 'end_date',
        constraint: `at most ${MAX_RANGE_DAYS} days after start_date`,
      });
    }
    const [user] = await this.app.database.rows(sql`select 1 from users where id = ${userId}`);
    if (!user) throw notFound('stats.error.user_not_found', 'No such user', { field: 'user_id', constraint: 'existing user' });

    const mark = await rolledThrough(this.app);
    const liveFrom = mark === null ? startDate : maxDay(startDate, addDays(mark, 1));
    const counts = new Map<string, DayCounts>();

    if (mark !== null && startDate <= mark) {
      const rolled = await this.app.database.rows<DayCounts & { day: string }>(sql`
        select day::text as day, posts, followers, following, reactions from daily_stats
        where user_id = ${userId} and day >= ${startDate}::date and day <= ${minDay(endDate, mark)}::date`);
      for (const r of rolled) counts.set(r.day, { posts: r.posts, followers: r.followers, following: r.following, reactions: r.reactions });
    }
    if (liveFrom <= endDate) {
      const live = await this.app.database.rows<DayCounts & { day: string }>(sql`
        select e.day::text as day, sum(e.posts)::int as posts, sum(e.followers)::int as followers,
               sum(e.following)::int as following, sum(e.reactions)::int as reactions
        from (${activityEvents(liveFrom, addDays(endDate, 1), userId)}) e group by e.day`);
      for (const r of live) counts.set(r.day, { posts: r.posts, followers: r.followers, following: r.following, reactions: r.reactions });
    }

    let total = await this.reactionsBefore(userId, startDate, mark);
    const result: StatsByDay = { days: [], followers_growth: 0, following_growth: 0, reactions_growth: 0 };
    for (let day = startDate; day <= endDate; day = addDays(day, 1)) {
      const c = counts.get(day) ?? ZERO;
      total += c.reactions;
      result.days.push({ date: midnightIso(day), ...c, reactions_total: total });
      result.followers_growth += c.followers;
      result.following_growth += c.following;
      result.reactions_growth += c.reactions;
    }
    return result;
  }

  /** Reactions received before `day`: rolled-up days from daily_stats, the rest live. */
  private async reactionsBefore(userId: string, day: string, mark: string | null): Promise<number> {
    let total = 0;
    if (mark !== null) {
      const [rolled] = await this.app.database.rows<{ n: number }>(sql`
        select coalesce(sum(reactions), 0)::int as n from daily_stats
        where user_id = ${userId} and day < ${minDay(day, addDays(mark, 1))}::date`);
      total += rolled.n;
    }
    const liveFrom = mark === null ? null : addDays(mark, 1);
    if (liveFrom === null || liveFrom < day) {
      const [live] = await this.app.database.rows<{ n: number }>(reactionsReceivedBefore(userId, day, liveFrom));
      total += live.n;
    }
    return total;
  }
}
