// The fast path of the nodes' invalidations: Redis pub/sub on one channel. `publish` resolves true
// once Redis has taken the message: Redis has then already written it to every subscribed node's
// connection, so the request that made the change can answer, ahead of anything its client sends
// next. False when Redis could not be reached (the caller sends it another way: cluster-relay.ts).
//
// A node that is not subscribed cannot hear what the others change: `hearing()` is false until
// the subscription is up, whenever the link is down, and when a heartbeat (PING on the subscribed
// connection) has not come back within HEARING_LEASE_MS, which finds out a link that stops
// answering without closing. Each (re)subscription forgets everything (messages sent meanwhile
// are lost).
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../shared/logger.js';
import { parseInvalidation, type Invalidation } from './invalidation.js';

/** A larger message is not ours: dropped unread. */
const MAX_MESSAGE_BYTES = 1024;
const HEARTBEAT_EVERY_MS = 500;
const HEARING_LEASE_MS = 1_500;

export class RedisRelay {
  private readonly nodeId = randomUUID();
  private readonly channel: string;
  private readonly subscriber: Redis;
  private subscribed = false;
  private lastPong = 0;
  private pinging = false;
  private readonly heartbeat: NodeJS.Timeout;
  private apply: (invalidation: Invalidation) => void = () => undefined;
  private readyWaiters: (() => void)[] = [];

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
          this.lastPong = Date.now();
          this.subscribed = true;
          for (const resolve of this.readyWaiters.splice(0)) resolve();
        },
        (err: Error) => this.log.warn({ err: err.message }, 'read-model subscription failed'),
      );
    });
    this.subscriber.on('message', (channel: string, text: string) => this.onMessage(channel, text));
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_EVERY_MS);
    this.heartbeat.unref();
  }

  /** True once Redis took the message; false when it could not be sent (logged). */
  async publish(invalidation: Invalidation): Promise<boolean> {
    try {
      await this.publisher.publish(this.channel, JSON.stringify({ from: this.nodeId, invalidation }));
      return true;
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'could not tell the other nodes about a change through Redis');
      return false;
    }
  }

  listen(apply: (invalidation: Invalidation) => void): void {
    this.apply = apply;
  }

  hearing(): boolean {
    return this.subscribed && Date.now() - this.lastPong < HEARING_LEASE_MS;
  }

  ready(timeoutMs: number): Promise<void> {
    if (this.subscribed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.readyWaiters.push(() => (clearTimeout(timer), resolve()));
    });
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    this.subscribed = false;
    this.subscriber.disconnect();
  }

  private async beat(): Promise<void> {
    if (!this.subscribed) return;
    if (this.pinging) {
      // A link that no longer answers: start over (the next subscription forgets everything).
      if (!this.hearing()) this.subscriber.disconnect(true);
      return;
    }
    this.pinging = true;
    try {
      await this.subscriber.ping();
      this.lastPong = Date.now();
    } catch {
      // The lease runs out; the next beat starts over.
    } finally {
      this.pinging = false;
    }
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
}
