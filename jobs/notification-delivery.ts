// The delivery loops of one node (every node runs them; the claims in the database make each
// notification and each push handled once): the sweep that pushes notifications whose commit
// was not followed by a push (a crash in between, or a writer that did not poke), and the Web
// Push worker that sends due pushes, including retries whose backoff has passed.
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';

/** How late a notification left unpushed by a crash may reach its sockets. */
const NOTIFICATION_SWEEP_MS = 5_000;
/** How often due Web Push retries are looked for (new pushes are sent at once). */
const PUSH_POLL_MS = 2_000;

export interface DeliveryLoops {
  /** Stops the loops and waits (at most timeoutMs) for a round in progress; what it leaves is claimed again later. */
  stop(timeoutMs: number): Promise<void>;
}

export function startNotificationDelivery(app: AppContext, services: Pick<Services, 'notifications' | 'notificationWakeUp' | 'push'>): DeliveryLoops {
  const { notifications, notificationWakeUp, push } = services;
  let stopping = false;
  const inFlight = new Set<Promise<unknown>>();
  const round = (failed: string, work: () => Promise<unknown>) => {
    if (stopping) return;
    const run = work()
      .catch((err) => app.log.warn({ err }, failed))
      .finally(() => inFlight.delete(run));
    inFlight.add(run);
  };
  const every = (ms: number, what: string, work: () => Promise<unknown>) => setInterval(() => round(`${what} failed; next round retries`, work), ms);
  // A writer's poke after its commit: the notifications go out now rather than at the next sweep.
  const unsubscribe = notificationWakeUp.onPoke(() => round('notification delivery failed; the sweep retries', () => notifications.deliverPending()));
  const timers = [
    every(NOTIFICATION_SWEEP_MS, 'notification sweep', () => notifications.deliverPending()),
    every(PUSH_POLL_MS, 'web push delivery', () => push.deliverDue()),
  ];
  for (const timer of timers) timer.unref();
  return {
    stop: async (timeoutMs) => {
      stopping = true;
      unsubscribe();
      timers.forEach(clearInterval);
      let timer: NodeJS.Timeout | undefined;
      // The services stop too: a poke after a commit (deliverSoon) must not start a round on a closing database.
      const rounds = [...inFlight, notifications.stop(), push.stop()];
      await Promise.race([Promise.allSettled(rounds), new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
      clearTimeout(timer);
    },
  };
}
