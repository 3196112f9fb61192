// Placeholder: node-cron scheduler with one leader per tick (settings/statistics/campaigns issue).
import type { AppContext } from '../src/context.js';
import type { CoreServices } from '../src/core-services.js';

export interface Scheduler {
  stop(): Promise<void>;
}

export function startScheduler(_app: AppContext, _core: CoreServices): Scheduler {
  return { stop: async () => undefined };
}
