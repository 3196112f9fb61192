// How the nodes tell each other what went stale: Redis pub/sub on one channel, in server mode.
// `send` resolves when Redis has taken the message (it is then already on its way to every
// subscribed node), so a request that changed something can answer after that.
//
// A node that is not subscribed cannot hear what the others change, so its caches are not to be
// trusted: `trusted()` is false until the subscription is up and whenever the link is down, and
// each (re)subscription forgets everything (messages sent meanwhile are lost). With one node
// (embedded mode, or no Redis) there is nobody to tell and the caches are always trusted.
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../shared/logger.js';
import { parseInvalidation, type Invalidation } from './invalidation.js';

export interface InvalidationRelay {
  /** Tells the other nodes; resolves once sent (or once sending failed: that is logged). */
  send(invalidation: Invalidation): Promise<void>;
  /** `apply` receives the other nodes' invalidations (never this node's own). */
  listen(apply: (invalidation: Invalidation) => void): void;
  trusted(): boolean;
  close(): Promise<void>;
}

/** One node: nothing to tell. */
export class SingleNodeRelay implements InvalidationRelay {
  send(): Promise<void> {
    return Promise.resolve();
  }
  listen(): void {}
  trusted(): boolean {
    return true;
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A larger message is not ours: dropped unread. */
const MAX_MESSAGE_BYTES = 1024;

export class RedisRelay implements InvalidationRelay {
  private readonly nodeId = randomUUID();
  private readonly channel: string;
  private readonly subscriber: Redis;
  private subscribed = false;
  private apply: (invalidation: Invalidation) => void = () => undefined;

  constructor(
    private readonly publisher: Redis,
    prefix: string,
    private readonly log: Logger,
  ) {
    this.channel = `${prefix}read-model`;
    // Its own connection (a subscribed connection can do nothing else), queueing commands until
    // it is connected, and resubscribing by itself after a reconnect.
    this.subscriber = publisher.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    this.subscriber.on('error', (err) => this.log.warn({ err: err.message }, 'read-model subscription error'));
    this.subscriber.on('close', () => {
      this.subscribed = false;
    });
    // On every (re)connection: subscribe (again; a repeated SUBSCRIBE is harmless) and, once
    // Redis has answered — from then on every message reaches us — forget whatever was sent while
    // we were away and trust the caches again.
    this.subscriber.on('ready', () => {
      this.subscriber.subscribe(this.channel).then(
        () => {
          this.apply({ kind: 'everything' });
          this.subscribed = true;
        },
        (err: Error) => this.log.warn({ err: err.message }, 'read-model subscription failed'),
      );
    });
    this.subscriber.on('message', (channel: string, text: string) => this.onMessage(channel, text));
  }

  private onMessage(channel: string, text: string): void {
    if (channel !== this.channel || text.length > MAX_MESSAGE_BYTES) return;
    let message: { from?: unknown; invalidation?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    if (message.from === this.nodeId) return;
    const invalidation = parseInvalidation(message.invalidation);
    if (invalidation) this.apply(invalidation);
  }

  async send(invalidation: Invalidation): Promise<void> {
    try {
      await this.publisher.publish(this.channel, JSON.stringify({ from: this.nodeId, invalidation }));
    } catch (err) {
      // The other nodes' entries age out (ReadCache ttl); their own link being down makes them
      // stop trusting their caches anyway.
      this.log.warn({ err: (err as Error).message }, 'could not tell the other nodes about a change');
    }
  }

  listen(apply: (invalidation: Invalidation) => void): void {
    this.apply = apply;
  }

  trusted(): boolean {
    return this.subscribed;
  }

  async close(): Promise<void> {
    this.subscribed = false;
    this.subscriber.disconnect();
  }
}
