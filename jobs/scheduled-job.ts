// A job the cron scheduler runs. Each tick runs on one node only (the scheduler takes a
// PostgreSQL advisory lock per job); `run` must be idempotent and catch up on missed ticks
// (it is given the time of the tick and should process everything due up to it).
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';

/** What a job works with: the node's context and the services it declared (`uses`), no others. */
export interface JobNode<K extends keyof Services = keyof Services> {
  app: AppContext;
  services: Pick<Services, K>;
}

export interface ScheduledJob<K extends keyof Services = keyof Services> {
  name: string;
  /** node-cron expression (seconds field optional). */
  cron: string;
  /** The services `run` uses: the scheduler hands it these only. */
  uses: readonly K[];
  run(node: JobNode<K>, now: Date): Promise<void>;
}
