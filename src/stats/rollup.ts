// The daily roll-up: counts each finished UTC day once into daily_stats, so reading a long range
// does not rescan the source tables. A roll-up is a snapshot: a post deleted after its day was
// rolled up still counts on that day. Idempotent: it continues after the watermark (the last day
// rolled up), so a run after downtime catches up every missed day in one pass.
import type { DatabaseHandle } from '../db/client.js';
import { addDays, dayOf } from './days.js';
import { StatsRepository } from './stats-repository.js';

interface RollupResult {
  from: string;
  to: string;
}

/** Rolls up every day after the watermark up to `lastDay` (normally yesterday). */
export async function rollUpThrough(database: DatabaseHandle['longRunning'], lastDay: string): Promise<RollupResult | null> {
  return database.transaction(async (tx) => {
    const stats = new StatsRepository(tx);
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
