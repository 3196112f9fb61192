// The nodes' invalidations through PostgreSQL (server mode): the path that does not depend on any
// node's link to Redis, for what every node must have heard before a request answers. One NOTIFY
// channel in the service's database (deployments in other databases never hear it); a message of
// a few dozen bytes per change, never the data itself.
// - `within(tx, …)`, for a revocation: the NOTIFY is a statement of the transaction that makes the
//   change, so a listening node hears of it when, and only if, the change commits. The same
//   transaction reads which nodes listen (their listener connections, named `read_model:<node>`,
//   in pg_stat_activity); after the commit each of them acknowledges the message once it has
//   applied it, and the answer resolves true when all have: every node then refuses what was
//   revoked. False when one does not acknowledge within ACK_WAIT_MS (it may be cut off; it stops
//   trusting its caches within its listener's lease, and PostgreSQL drops its listener soon after).
// - `send`, for a change already committed whose Redis message could not go: the same, in a
//   transaction of its own; a notice that cannot be sent at all is sent again every
//   RESEND_EVERY_MS until it goes.
// - `trusted()` while the listener hears (src/db/notification-listener.ts); each (re)LISTEN forgets
//   every cache, since messages sent meanwhile were missed.
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { DatabaseHandle, Queryable } from '../db/client.js';
import type { Logger } from '../shared/logger.js';
import { RetryQueue } from '../shared/retry-queue.js';
import { parseInvalidation, type Invalidation } from './invalidation.js';
import type { ReadModelNoticeRepository } from './notice-repository.js';
import type { InvalidationRelay } from './relay.js';

export const READ_MODEL_CHANNEL = 'read_model';
/** The listener connection of node <id> is named `read_model:<id>`. */
const LISTENER_NAME_PREFIX = 'read_model:';

/** PostgreSQL refuses payloads of 8000 bytes or more: longer batches go in several messages. */
const MAX_PAYLOAD_BYTES = 7_000;
/** The longest wait for every listening node to acknowledge a message. */
const ACK_WAIT_MS = 2_000;
const RESEND_EVERY_MS = 500;
/** Notices kept for sending again; past this the oldest go (their copies elsewhere age out). */
const MAX_UNSENT = 10_000;

/** What the relay needs of its listener (src/db/notification-listener.ts). */
export interface Listening {
  start(): void;
  hearing(): boolean;
  /** Sends on the channel over the listener's own connection. */
  notify(payload: string): Promise<void>;
  close(): Promise<void>;
}

/** A message: an invalidation batch to acknowledge, or an acknowledgement. */
type Message = { from: string; id: string; invalidations: Invalidation[] } | { from: string; ack: string };

/** A message this node sent, waiting for the nodes that listened when it was sent. */
interface AwaitedAcks {
  missing: Set<string>;
  done: () => void;
}

export class PostgresRelay implements InvalidationRelay {
  readonly nodeId = randomUUID();
  private readonly listener: Listening;
  private apply: (invalidation: Invalidation) => void = () => undefined;
  private readonly awaited = new Map<string, AwaitedAcks>();
  /** Acknowledgements that came before their message was awaited, by message id. */
  private readonly earlyAcks = new LRUCache<string, Set<string>>({ max: 10_000, ttl: 60_000 });
  private readonly unsent: RetryQueue<Invalidation[]>;
  private readyWaiters: (() => void)[] = [];

  constructor(
    private readonly database: DatabaseHandle,
    private readonly notices: ReadModelNoticeRepository,
    listen: (name: string, onNotification: (payload: string) => void, onListening: () => void) => Listening,
    private readonly log: Logger,
  ) {
    this.unsent = new RetryQueue(
      async (batch) => void (await this.database.transaction((tx) => this.within(tx, batch))),
      RESEND_EVERY_MS,
      MAX_UNSENT,
      () => this.log.error('too many read-model notices waiting for the database: the oldest was dropped'),
    );
    this.listener = listen(
      `${LISTENER_NAME_PREFIX}${this.nodeId}`,
      (payload) => this.onNotification(payload),
      () => {
        // From now on every message reaches us; those sent while we were away did not.
        this.apply({ kind: 'everything' });
        for (const resolve of this.readyWaiters.splice(0)) resolve();
      },
    );
    this.listener.start();
  }

  async send(invalidation: Invalidation): Promise<void> {
    let acknowledged: () => Promise<boolean>;
    try {
      acknowledged = await this.database.transaction((tx) => this.within(tx, [invalidation]));
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'could not tell the other nodes about a change; sending it again shortly');
      this.unsent.add([invalidation]);
      return;
    }
    if (!(await acknowledged())) this.log.warn('a change was sent, but not every node acknowledged it in time');
  }

  async within(tx: Queryable, invalidations: Invalidation[]): Promise<() => Promise<boolean>> {
    if (invalidations.length === 0) return () => Promise.resolve(true);
    const notices = this.notices.in(tx);
    const nodes = await notices.listenerNames(LISTENER_NAME_PREFIX);
    const ids: string[] = [];
    for (const batch of this.batches(invalidations)) {
      const id = randomUUID();
      ids.push(id);
      await notices.notify(READ_MODEL_CHANNEL, JSON.stringify({ from: this.nodeId, id, invalidations: batch }));
    }
    return async () => (await Promise.all(ids.map((id) => this.acknowledged(id, nodes)))).every(Boolean);
  }

  listen(apply: (invalidation: Invalidation) => void): void {
    this.apply = apply;
  }

  trusted(): boolean {
    return this.listener.hearing();
  }

  ready(timeoutMs: number): Promise<void> {
    if (this.listener.hearing()) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.readyWaiters.push(() => (clearTimeout(timer), resolve()));
    });
  }

  async close(): Promise<void> {
    this.unsent.close();
    await this.listener.close();
  }

  /** The invalidations in batches under PostgreSQL's payload limit. */
  private batches(invalidations: Invalidation[]): Invalidation[][] {
    const batches: Invalidation[][] = [];
    let bytes = Infinity;
    for (const invalidation of invalidations) {
      const size = JSON.stringify(invalidation).length + 1;
      if (bytes + size > MAX_PAYLOAD_BYTES) {
        batches.push([]);
        bytes = 200;
      }
      batches[batches.length - 1].push(invalidation);
      bytes += size;
    }
    return batches;
  }

  /** True once every node of `nodes` has acknowledged message `id`; false past ACK_WAIT_MS. */
  private acknowledged(id: string, nodes: string[]): Promise<boolean> {
    const missing = new Set(nodes);
    for (const node of this.earlyAcks.get(id) ?? []) missing.delete(node);
    this.earlyAcks.delete(id);
    if (missing.size === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.awaited.delete(id);
        this.log.warn({ missing: [...missing] }, 'nodes did not acknowledge a read-model message in time');
        resolve(false);
      }, ACK_WAIT_MS);
      this.awaited.set(id, { missing, done: () => (clearTimeout(timer), this.awaited.delete(id), resolve(true)) });
    });
  }

  private onNotification(payload: string): void {
    const message = this.parse(payload);
    if (!message) return;
    if ('ack' in message) {
      this.acknowledge(message.ack, message.from);
      return;
    }
    if (message.from === this.nodeId) {
      // Our own message came back: this node has it (applied when its change committed).
      this.acknowledge(message.id, this.nodeId);
      return;
    }
    for (const value of message.invalidations) {
      const invalidation = parseInvalidation(value);
      if (invalidation) this.apply(invalidation);
    }
    this.listener.notify(JSON.stringify({ from: this.nodeId, ack: message.id })).catch((err: Error) => {
      this.log.warn({ err: err.message }, 'could not acknowledge a read-model message');
    });
  }

  private acknowledge(id: string, node: string): void {
    const awaited = this.awaited.get(id);
    if (!awaited) {
      const early = this.earlyAcks.get(id) ?? new Set<string>();
      early.add(node);
      this.earlyAcks.set(id, early);
      return;
    }
    awaited.missing.delete(node);
    if (awaited.missing.size === 0) awaited.done();
  }

  private parse(payload: string): Message | null {
    if (payload.length > MAX_PAYLOAD_BYTES + 1_000) return null;
    let value: { from?: unknown; id?: unknown; ack?: unknown; invalidations?: unknown };
    try {
      value = JSON.parse(payload) as typeof value;
    } catch {
      return null;
    }
    if (typeof value.from !== 'string') return null;
    if (typeof value.ack === 'string') return { from: value.from, ack: value.ack };
    if (typeof value.id !== 'string' || !Array.isArray(value.invalidations)) return null;
    return { from: value.from, id: value.id, invalidations: value.invalidations as Invalidation[] };
  }
}
