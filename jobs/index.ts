// Starts the background work of one node: durable video workers and the cron scheduler.
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';
import { startVideoWorkers } from './video-worker.js';
import { startScheduler } from './scheduler.js';

export interface RunningJobs {
  /** Stops taking new work and waits (bounded) for work in progress. */
  stop(timeoutMs: number): Promise<void>;
}

export async function startJobs(app: AppContext, services: Services): Promise<RunningJobs> {
  const videoWorkers = startVideoWorkers(app, services);
  const scheduler = app.config.SCHEDULER_ENABLED ? startScheduler({ app, services }) : null;
  return {
    stop: async (timeoutMs) => {
      await scheduler?.stop();
      await videoWorkers.stop(timeoutMs);
    },
  };
}
