// The presence store of this node: Redis when the service has one (several nodes), else memory.
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { MemoryPresenceStore, type PresenceStore } from './presence-store.js';
import { RedisPresenceStore } from './redis-presence-store.js';

export function createPresenceStore(config: Config, redis: Redis | null): PresenceStore {
  return redis ? new RedisPresenceStore(redis, config.REDIS_PREFIX, config.PRESENCE_TTL_SECONDS * 1000) : new MemoryPresenceStore();
}
