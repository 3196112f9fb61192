// The export workers of one node (CONTRACT §22): every node looks for pending exports every few
// seconds and at once when an export is asked for on this node (claims with a lease make each run
// once; one whose worker died is taken up again after JOB_LEASE_SECONDS), and removes the files of
// exports past their 24 hours once a minute.
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';
import { startPollingWorker, type PollingWorker } from './polling-worker.js';

const EXPIRE_EVERY_MS = 60_000;

export function startDataExports(app: AppContext, services: Pick<Services, 'dataExports' | 'exportWakeUp'>): PollingWorker {
  return startPollingWorker(app, {
    name: 'data export',
    round: (stopping) => services.dataExports.runDue(stopping),
    onPoke: (poke) => services.exportWakeUp.onPoke(poke),
    every: [{ ms: EXPIRE_EVERY_MS, run: () => services.dataExports.expireDue(), name: 'expiring data exports' }],
  });
}
