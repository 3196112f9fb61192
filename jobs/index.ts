// Starts the background work of one node: durable video workers and the cron scheduler.
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';
import { startVideoWorkers, type VideoRunObserver } from './video-worker.js';
import { startScheduler } from './scheduler.js';
import { startNotificationDelivery } from './notification-delivery.js';
import { startSavedSearchMatching } from './saved-search-matching.js';
import { startAccountErasure } from './account-erasure.js';
import { startDataExports } from './data-export.js';

export interface RunningJobs {
  /** Stops taking new work and waits (bounded) for work in progress. */
  stop(timeoutMs: number): Promise<void>;
}

export async function startJobs(app: AppContext, services: Services, observeVideoRun?: VideoRunObserver): Promise<RunningJobs> {
  const videoWorkers = startVideoWorkers(app, services, observeVideoRun);
  const scheduler = app.config.SCHEDULER_ENABLED ? startScheduler({ app, services }) : null;
  const notificationDelivery = startNotificationDelivery(app, services);
  const savedSearchMatching = startSavedSearchMatching(app, services);
  const accountErasure = startAccountErasure(app, services);
  const dataExports = startDataExports(app, services);
  return {
    stop: async (timeoutMs) => {
      await accountErasure.stop(timeoutMs);
      await dataExports.stop(timeoutMs);
      await scheduler?.stop();
      await savedSearchMatching.stop();
      await notificationDelivery.stop(timeoutMs);
      await videoWorkers.stop(timeoutMs);
    },
  };
}
