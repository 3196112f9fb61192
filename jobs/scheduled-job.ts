// A job the cron scheduler runs. Each tick runs on one node only (the scheduler takes a
// PostgreSQL advisory lock per job); `run` must be idempotent and catch up on missed ticks
// (it is given the time of the tick and should process everything due up to it).
import type { AppContext } from '../src/context.js';

export interface ScheduledJob {
  name: string;
  /** node-cron expression (seconds field optional). */
  cron: string;
  run(app: AppContext, now: Date): Promise<void>;
}
