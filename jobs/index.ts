// Starts the background work of one node: durable video workers and the cron scheduler.
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';
import { startVideoWorkers, type VideoRunObserver } from './video-worker.js';
import { startScheduler } from './scheduler.js';
import { startNotificationDelivery } from './notification-delivery.js';
import { startSavedSearchMatching } from './saved-search-matching.js';
import { startAccountErasure } from './account-erasure.js';
import { startDataExports } from './data-export.js';
import { pick } from '../src/shared/pick.js';

export interface RunningJobs {
  /** Stops taking new work and waits (bounded) for work in progress. */
  stop(timeoutMs: number): Promise<void>;
}

export async function startJobs(app: AppContext, services: Services, observeVideoRun?: VideoRunObserver): Promise<RunningJobs> {
  // Each worker is given the services it declares; the scheduler hands each cron job its own.
  const videoWorkers = startVideoWorkers(app, pick(services, ['videoJobs', 'videoProcessor', 'videoWakeUp']), observeVideoRun);
  const scheduler = app.config.SCHEDULER_ENABLED ? startScheduler({ app, services }) : null;
  const notificationDelivery = startNotificationDelivery(app, pick(services, ['notifications', 'notificationWakeUp', 'push']));
  const savedSearchMatching = startSavedSearchMatching(app, pick(services, ['savedSearchMatcher']));
  const accountErasure = startAccountErasure(app, pick(services, ['accountErasure', 'erasureWakeUp']));
  const dataExports = startDataExports(app, pick(services, ['dataExports', 'exportWakeUp']));
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
