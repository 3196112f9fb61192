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

/** The services each long-running worker uses (its start function's parameter type checks the list). */
export const WORKER_SERVICES = {
  videoWorkers: ['videoJobs', 'videoProcessor', 'videoWakeUp'],
  notificationDelivery: ['notifications', 'notificationWakeUp', 'push'],
  savedSearchMatching: ['savedSearchMatcher'],
  accountErasure: ['accountErasure', 'erasureWakeUp'],
  dataExports: ['dataExports', 'exportWakeUp'],
} as const satisfies Record<string, readonly (keyof Services)[]>;

export async function startJobs(app: AppContext, services: Services, observeVideoRun?: VideoRunObserver): Promise<RunningJobs> {
  // Each worker is given the services it declares; the scheduler hands each cron job its own.
  const videoWorkers = startVideoWorkers(app, pick(services, WORKER_SERVICES.videoWorkers), observeVideoRun);
  const scheduler = app.config.SCHEDULER_ENABLED ? startScheduler({ app, services }) : null;
  const notificationDelivery = startNotificationDelivery(app, pick(services, WORKER_SERVICES.notificationDelivery));
  const savedSearchMatching = startSavedSearchMatching(app, pick(services, WORKER_SERVICES.savedSearchMatching));
  const accountErasure = startAccountErasure(app, pick(services, WORKER_SERVICES.accountErasure));
  const dataExports = startDataExports(app, pick(services, WORKER_SERVICES.dataExports));
  return {
    stop: async (timeoutMs) => {
      await accountErasure.stop(timeoutMs);
      await dataExports.stop(timeoutMs);
      await scheduler?.stop(timeoutMs);
      await savedSearchMatching.stop();
      await notificationDelivery.stop(timeoutMs);
      await videoWorkers.stop(timeoutMs);
    },
  };
}
