// Revocations, the one way (CONTRACT §11, §14): logout, DELETE /user/sessions/{id} and /others,
// password change and reset, the idle timeout, a reused refresh token (and whatever later ends a
// user's sessions or changes what they may do: suspension, deletion, role change) all call
// `revoke`, so a revoked session is refused on every node from the next request on:
// - the change and the notice to every node's caches commit together, in one transaction (server
//   mode: a PostgreSQL NOTIFY, which a listening node hears when, and only if, the change commits:
//   src/read-model/postgres-relay.ts). No node's link to Redis is on that path. A node that may
//   have missed a notice (its listener is not hearing) trusts none of its caches;
// - the request is answered once every node that listened when the change committed has
//   acknowledged the notice (it has dropped what it cached of those sessions). When one does not
//   in time, 503: the revocation stands, committed, and that node, if it is cut off, stops
//   trusting its caches within its listener's lease;
// - when the database does not answer, whether the change committed is unknown: 503, and a change
//   that may safely run twice (`retry`) is tried again every RETRY_EVERY_MS until it is done, so
//   the revocation completes by itself soon after the database answers again (until this node
//   stops: the queue is in memory);
// - every node drops the ended sessions' sockets (`session.revoked`, published where the session
//   was ended and on each node that hears of it).
import type { DatabaseHandle, Queryable } from '../db/client.js';
import type { DomainEventBus } from '../event-bus.js';
import type { Invalidation } from '../read-model/index.js';
import type { ReadModel } from '../read-model/index.js';
import type { Logger } from '../shared/logger.js';
import { RetryQueue } from '../shared/retry-queue.js';
import { isUnavailableError, serviceUnavailable } from '../shared/unavailable.js';

export interface EndedSession {
  userId: string;
  sessionId: string;
}

/** What a revocation did. */
export interface Revoked {
  /** Sessions ended. */
  sessions: EndedSession[];
  /** Users whose live sessions must be checked again (their role or standing changed). */
  users?: string[];
  /** Whether listed items changed too (a deleted account's items left every listing). */
  listings?: boolean;
  /** What roles grant changed (CONTRACT §21): every node reads roles and permissions again. */
  roles?: boolean;
}

/** The writes of a revocation, run inside its transaction. */
export type RevokingChange = (tx: Queryable) => Promise<Revoked>;

const RETRY_EVERY_MS = 1_000;
/** Revocations kept for retrying; past this the oldest are dropped (logged). */
const MAX_RETRIES_PENDING = 10_000;

const invalidationsOf = (revoked: Revoked): Invalidation[] => [
  ...revoked.sessions.map((s): Invalidation => ({ kind: 'session', sessionId: s.sessionId, userId: s.userId })),
  ...(revoked.users ?? []).map((userId): Invalidation => ({ kind: 'user', userId })),
  ...(revoked.listings ? [{ kind: 'listings' } satisfies Invalidation] : []),
  ...(revoked.roles ? [{ kind: 'roles' } as const] : []),
];

export class Revocations {
  /** Revocations whose commit is unknown, run again until done. */
  private readonly pending: RetryQueue<RevokingChange>;

  constructor(
    private readonly database: DatabaseHandle,
    // Not its item cache: whose rows are content's.
    private readonly readModel: Omit<ReadModel, 'items'>,
    private readonly events: DomainEventBus,
    private readonly log: Logger,
  ) {
    this.pending = new RetryQueue(
      async (change) => {
        try {
          await this.revoke(change);
        } catch (err) {
          // Still no database: again later. Anything else (a 503 for the acknowledgements only:
          // committed) leaves nothing to do.
          if (isUnavailableError(err)) throw err;
        }
      },
      RETRY_EVERY_MS,
      MAX_RETRIES_PENDING,
      () => log.error('too many revocations waiting for the database: the oldest was dropped'),
    );
    readModel.onSessionEndedElsewhere((session) => events.publish('session.revoked', { ...session, here: false }));
  }

  /**
   * Runs `change` (the writes that end sessions or change what users may do) and makes every node
   * refuse what it revoked. Resolves once that is sure; throws 503 otherwise (see the top).
   * `retry`: the change may run twice, and is run again until done when the database did not answer.
   */
  async revoke(change: RevokingChange, options: { retry?: boolean } = {}): Promise<Revoked> {
    let done: { revoked: Revoked; handedOver: () => Promise<boolean> };
    try {
      done = await this.database.transaction(async (tx) => {
        const revoked = await change(tx);
        return { revoked, handedOver: await this.readModel.invalidateWith(tx, invalidationsOf(revoked)) };
      });
    } catch (err) {
      if (options.retry && isUnavailableError(err)) this.pending.add(change);
      throw err;
    }
    for (const session of done.revoked.sessions) this.events.publish('session.revoked', { ...session, here: true });
    if (!(await done.handedOver())) {
      this.log.warn('a revocation committed, but not every node acknowledged it in time');
      throw serviceUnavailable();
    }
    return done.revoked;
  }

  /** Stops retrying (the node is stopping). */
  close(): void {
    this.pending.close();
  }
}
