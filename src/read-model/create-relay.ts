// Which relay a node's read model uses: Redis when the nodes share one; none when this process is
// the only node (embedded mode: the DATA_DIR lock guarantees it). A database server without Redis
// may have other nodes that cannot tell this one anything: its caches are then never trusted.
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Logger } from '../shared/logger.js';
import { RedisRelay, SingleNodeRelay, type InvalidationRelay } from './relay.js';

class UnlinkedRelay extends SingleNodeRelay {
  override trusted(): boolean {
    return false;
  }
}

export function createRelay(config: Config, redis: Redis | null, log: Logger): InvalidationRelay {
  if (redis) return new RedisRelay(redis, config.REDIS_PREFIX, log);
  return config.embeddedDatabase ? new SingleNodeRelay() : new UnlinkedRelay();
}
