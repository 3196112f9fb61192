// The daily roll-up: counts each finished UTC day once into daily_stats, so reading a long range
// does not rescan the source tables. A roll-up is a snapshot: a post deleted after its day was
// rolled up still counts on that day. Idempotent: it continues after the watermark (the last day
// rolled up), so a run after downtime catches up every missed day in one pass.
import type { DatabaseHandle } from '../db/client.js';
import { addDays, dayOf } from './days.js';
import type { StatsRepository } from './stats-repository.js';

interface RollupResult {
  from: string;
  to: string;
}

export class StatsRollup {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly stats: StatsRepository,
  ) {}

  /** Rolls up every day after the watermark up to the last UTC day finished at `now` (yesterday). */
  rollUpFinishedDays(now: Date): Promise<RollupResult | null> {
    const lastDay = addDays(dayOf(now), -1);
    return this.database.transaction(async (tx) => {
      const stats = this.stats.in(tx);
      const mark = await stats.lockRolledThrough();
      let from: string | null = mark === null ? null : addDays(mark, 1);
      if (from === null) {
        // First run: start at the earliest activity there is.
        const first = await stats.earliestActivity();
        if (!first) return null;
        from = dayOf(first);
      }
      if (from > lastDay) return null;
      await stats.rollUp(from, lastDay);
      await stats.setRolledThrough(lastDay);
      return { from, to: lastDay };
    });
  }
}
