// How the nodes tell each other what went stale. A relay sends a node's invalidations to the other
// nodes and hands theirs to this node's read model, and says whether this node can be sure to hear
// every one (`trusted()`): a node that may miss some must not answer from its caches. In server
// mode with Redis it is Redis and PostgreSQL together (cluster-relay.ts); with one node (embedded
// mode) there is nobody to tell.
import type { Queryable } from '../db/client.js';
import type { Invalidation } from './invalidation.js';

export interface InvalidationRelay {
  /**
   * Tells the other nodes about a change already committed; resolves once they have been handed
   * it, or once sending failed (logged, and sent again later).
   */
  send(invalidation: Invalidation): Promise<void>;
  /**
   * Writes the invalidations into `tx`, the transaction that makes the change, so every node hears
   * them when, and only if, it commits. The answer, called after the commit, resolves true once
   * every other node has applied them, false when that is not sure.
   */
  within(tx: Queryable, invalidations: Invalidation[]): Promise<() => Promise<boolean>>;
  /** `apply` receives the other nodes' invalidations (never this node's own). */
  listen(apply: (invalidation: Invalidation) => void): void;
  trusted(): boolean;
  /** Resolves once the relay hears the other nodes, or after `timeoutMs` (it goes on trying). */
  ready(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** One node: nothing to tell. */
export class SingleNodeRelay implements InvalidationRelay {
  send(): Promise<void> {
    return Promise.resolve();
  }
  within(): Promise<() => Promise<boolean>> {
    return Promise.resolve(() => Promise.resolve(true));
  }
  listen(): void {}
  trusted(): boolean {
    return true;
  }
  ready(): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * A database server without Redis: other nodes may change things without a way to tell this one
 * quickly, so its caches are never trusted (every read goes to the database); a revocation has
 * nothing to wait for.
 */
export class UnlinkedRelay extends SingleNodeRelay {
  override trusted(): boolean {
    return false;
  }
}
