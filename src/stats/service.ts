// Daily statistics of one user (SPEC §2.6, CONTRACT §12). Days up to the roll-up watermark come
// from daily_stats; later days (today always) are counted live from the source tables.
// reactions_total is the running total of reactions received up to the end of each day;
// each *_growth is the sum of that column over the range.
import { requirePermission, type Caller } from '../auth/index.js';
import type { UserRepository } from '../auth/index.js';
import { notFound } from '../shared/errors.js';
import { checkDayRange } from './range.js';
import { addDays, maxDay, midnightIso, minDay } from './days.js';
import type { StatsByDay } from './schemas.js';
import type { DayCounts, StatsRepository } from './stats-repository.js';

const ZERO: DayCounts = { posts: 0, followers: 0, following: 0, reactions: 0 };
const NO_VIEWS = { views: 0, watch_seconds: 0, leads: 0 };

export class StatsService {
  constructor(
    private readonly stats: StatsRepository,
    private readonly users: UserRepository,
  ) {}

  /** The statistics of `userId` (the caller's own when absent); another user's need read:any_stats. */
  async byDay(caller: Caller, userId: string | undefined, startDate: string, endDate: string): Promise<StatsByDay> {
    const subjectId = userId ?? caller.userId;
    if (subjectId !== caller.userId) requirePermission(caller, 'read:any_stats');
    checkDayRange(startDate, endDate, 'stats');
    if (!(await this.users.exists(subjectId))) {
      throw notFound('stats.error.user_not_found', 'No such user', { field: 'user_id', constraint: 'existing user' });
    }

    const mark = await this.stats.rolledThrough();
    const liveFrom = mark === null ? startDate : maxDay(startDate, addDays(mark, 1));
    const counts = new Map<string, DayCounts>();

    if (mark !== null && startDate <= mark) {
      for (const { day, ...c } of await this.stats.rolledUpDays(subjectId, startDate, minDay(endDate, mark))) counts.set(day, c);
    }
    if (liveFrom <= endDate) {
      for (const { day, ...c } of await this.stats.liveDays(subjectId, liveFrom, addDays(endDate, 1))) counts.set(day, c);
    }

    const viewing = new Map((await this.stats.viewDays(subjectId, startDate, endDate)).map(({ day, ...v }) => [day, v]));
    let total = await this.reactionsBefore(subjectId, startDate, mark);
    const result: StatsByDay = { days: [], followers_growth: 0, following_growth: 0, reactions_growth: 0 };
    for (let day = startDate; day <= endDate; day = addDays(day, 1)) {
      const c = counts.get(day) ?? ZERO;
      total += c.reactions;
      result.days.push({ date: midnightIso(day), ...c, reactions_total: total, ...(viewing.get(day) ?? NO_VIEWS) });
      result.followers_growth += c.followers;
      result.following_growth += c.following;
      result.reactions_growth += c.reactions;
    }
    return result;
  }

  /** Reactions received before `day`: rolled-up days from daily_stats, the rest live. */
  private async reactionsBefore(userId: string, day: string, mark: string | null): Promise<number> {
    let total = 0;
    if (mark !== null) total += await this.stats.rolledUpReactionsBefore(userId, minDay(day, addDays(mark, 1)));
    const liveFrom = mark === null ? null : addDays(mark, 1);
    if (liveFrom === null || liveFrom < day) total += await this.stats.liveReactionsBefore(userId, day, liveFrom);
    return total;
  }
}
