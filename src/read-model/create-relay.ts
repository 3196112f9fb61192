// Which relay a node's read model uses: with one node (embedded mode: the DATA_DIR lock guarantees
// it) none; several nodes on a database server with Redis hear each other through Redis and
// PostgreSQL (cluster-relay.ts); a database server without Redis may have other nodes that cannot
// tell this one quickly, so its caches are never trusted.
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { NotificationListener } from '../db/notification-listener.js';
import type { Logger } from '../shared/logger.js';
import { ClusterRelay } from './cluster-relay.js';
import type { ReadModelNoticeRepository } from './notice-repository.js';
import { PostgresRelay, READ_MODEL_CHANNEL } from './postgres-relay.js';
import { RedisRelay } from './redis-relay.js';
import { SingleNodeRelay, UnlinkedRelay, type InvalidationRelay } from './relay.js';

export function createRelay(config: Config, database: DatabaseHandle, notices: ReadModelNoticeRepository, redis: Redis | null, log: Logger): InvalidationRelay {
  if (config.embeddedDatabase) return new SingleNodeRelay();
  if (!redis) return new UnlinkedRelay();
  const postgres = new PostgresRelay(
    database,
    notices,
    (name, onNotification, onListening) =>
      new NotificationListener(
        { connectionString: config.DATABASE_URL!, channel: READ_MODEL_CHANNEL, timeoutMs: config.DATABASE_TIMEOUT_MS, name },
        onNotification,
        onListening,
        log,
      ),
    log,
  );
  return new ClusterRelay(new RedisRelay(redis, config.REDIS_PREFIX, log), postgres);
}
