// The erasure workers of one node (CONTRACT §22): every node looks for due account erasures every
// few seconds and at once when a deletion on this node commits; the claims in the database
// (account_erasures, with a lease) make each erasure run by one worker at a time, and one whose
// worker died is taken up again after the lease (JOB_LEASE_SECONDS).
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';
import { startPollingWorker, type PollingWorker } from './polling-worker.js';

export function startAccountErasure(app: AppContext, services: Pick<Services, 'accountErasure' | 'erasureWakeUp'>): PollingWorker {
  return startPollingWorker(app, {
    name: 'account erasure',
    round: (stopping) => services.accountErasure.runDue(stopping),
    onPoke: (poke) => services.erasureWakeUp.onPoke(poke),
  });
}
