// A job the cron scheduler runs. Each tick runs on one node only (the scheduler takes a
// PostgreSQL advisory lock per job); `run` must be idempotent and catch up on missed ticks
// (it is given the time of the tick and should process everything due up to it).
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';

/** What a job works with: the node's context and the services of the composition root. */
export interface JobNode {
  app: AppContext;
  services: Services;
}

export interface ScheduledJob {
  name: string;
  /** node-cron expression (seconds field optional). */
  cron: string;
  run(node: JobNode, now: Date): Promise<void>;
}
