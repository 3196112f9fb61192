// The erasure workers of one node (CONTRACT §22): every node looks for due account erasures every
// few seconds and at once when a deletion on this node commits; the claims in the database
// (account_erasures, with a lease) make each erasure run by one worker at a time, and one whose
// worker died is taken up again after the lease (JOB_LEASE_SECONDS).
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';

const POLL_MS = 5_000;

export interface ErasureLoop {
  stop(timeoutMs: number): Promise<void>;
}

export function startAccountErasure(app: AppContext, services: Pick<Services, 'accountErasure' | 'erasureSignal'>): ErasureLoop {
  let stopping = false;
  let running: Promise<unknown> | null = null;
  let again = false;
  const round = () => {
    if (stopping) return;
    if (running) {
      again = true;
      return;
    }
    running = services.accountErasure
      .runDue(() => stopping)
      .catch((err) => app.log.warn({ err: (err as Error).message }, 'account erasure round failed; next round retries'))
      .finally(() => {
        running = null;
        if (again && !stopping) {
          again = false;
          round();
        }
      });
  };
  const timer = setInterval(round, POLL_MS);
  timer.unref();
  services.erasureSignal.onPoke(round);
  setImmediate(round);
  return {
    stop: async (timeoutMs) => {
      stopping = true;
      clearInterval(timer);
      let t: NodeJS.Timeout | undefined;
      if (running) await Promise.race([running, new Promise((r) => (t = setTimeout(r, timeoutMs)))]);
      clearTimeout(t);
    },
  };
}
