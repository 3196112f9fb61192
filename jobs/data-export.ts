// The export workers of one node (CONTRACT §22): every node looks for pending exports every few
// seconds and at once when an export is asked for on this node (claims with a lease make each run
// once; one whose worker died is taken up again after JOB_LEASE_SECONDS), and removes the files of
// exports past their 24 hours once a minute.
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';

const POLL_MS = 5_000;
const EXPIRE_EVERY_MS = 60_000;

export interface ExportLoop {
  stop(timeoutMs: number): Promise<void>;
}

export function startDataExports(app: AppContext, services: Pick<Services, 'dataExports' | 'exportSignal'>): ExportLoop {
  let stopping = false;
  let running: Promise<unknown> | null = null;
  let again = false;
  const round = () => {
    if (stopping) return;
    if (running) {
      again = true;
      return;
    }
    running = services.dataExports
      .runDue(() => stopping)
      .catch((err) => app.log.warn({ err: (err as Error).message }, 'data export round failed; next round retries'))
      .finally(() => {
        running = null;
        if (again && !stopping) {
          again = false;
          round();
        }
      });
  };
  const expire = () => {
    if (stopping) return;
    void services.dataExports.expireDue().catch((err) => app.log.warn({ err: (err as Error).message }, 'expiring data exports failed; next round retries'));
  };
  const timers = [setInterval(round, POLL_MS), setInterval(expire, EXPIRE_EVERY_MS)];
  for (const timer of timers) timer.unref();
  services.exportSignal.onPoke(round);
  setImmediate(round);
  return {
    stop: async (timeoutMs) => {
      stopping = true;
      timers.forEach(clearInterval);
      let t: NodeJS.Timeout | undefined;
      if (running) await Promise.race([running, new Promise((r) => (t = setTimeout(r, timeoutMs)))]);
      clearTimeout(t);
    },
  };
}
