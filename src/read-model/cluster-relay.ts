// The relay of a node among several (server mode with Redis), over two paths:
// - Redis pub/sub (redis-relay.ts), the fast one, for the invalidations of ordinary changes: the
//   message is on every node's connection before the change's request answers;
// - PostgreSQL (postgres-relay.ts), which does not depend on any node's link to Redis: for
//   revocations, written into the revoking transaction and acknowledged by every listening node
//   before the request answers; and for an ordinary change whose Redis message could not go
//   (this node lost Redis), sent and acknowledged the same way.
// A node hears its peers only while it hears both paths (a change may travel on either), so its
// caches are trusted only then.
import type { Queryable } from '../db/client.js';
import type { Invalidation } from './invalidation.js';
import type { PostgresRelay } from './postgres-relay.js';
import type { RedisRelay } from './redis-relay.js';
import type { InvalidationRelay } from './relay.js';

export class ClusterRelay implements InvalidationRelay {
  constructor(
    private readonly redis: RedisRelay,
    private readonly postgres: PostgresRelay,
  ) {}

  async send(invalidation: Invalidation): Promise<void> {
    if (!(await this.redis.publish(invalidation))) await this.postgres.send(invalidation);
  }

  within(tx: Queryable, invalidations: Invalidation[]): Promise<() => Promise<boolean>> {
    return this.postgres.within(tx, invalidations);
  }

  listen(apply: (invalidation: Invalidation) => void): void {
    this.redis.listen(apply);
    this.postgres.listen(apply);
  }

  trusted(): boolean {
    return this.redis.hearing() && this.postgres.trusted();
  }

  async ready(timeoutMs: number): Promise<void> {
    await Promise.all([this.redis.ready(timeoutMs), this.postgres.ready(timeoutMs)]);
  }

  async close(): Promise<void> {
    await Promise.all([this.redis.close(), this.postgres.close()]);
  }
}
