// The Socket.IO Redis adapter for several nodes (REDIS_URL set): one publishing and one
// subscribing ioredis connection, channels under REDIS_PREFIX + "socket.io" (Redis pub/sub
// ignores the database index, so the prefix is what keeps two deployments apart; the index in
// REDIS_URL is still honoured for the connections).
//
// Redis must never hold up or break REST: the adapter publishes without awaiting, so the
// publishing connection has no offline queue (while Redis is away a publish fails at once
// instead of piling up in memory and replaying stale events later), and every rejected command
// is caught here (an unhandled rejection would end the process). The subscribing connection
// keeps its queue and ioredis re-subscribes after a reconnect, so realtime recovers by itself;
// meanwhile each node still delivers to its own sockets.
import { Redis } from 'ioredis';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Server } from 'socket.io';
import type { Logger } from '../src/shared/logger.js';

export interface RedisAdapterHandle {
  close(): void;
}

/** Swallows (and logs, at most once per outage) rejections of the commands the adapter fires without awaiting. */
function guardCommands(client: Redis, names: string[], onError: (err: Error) => void): void {
  for (const name of names) {
    const original: (...args: unknown[]) => Promise<unknown> = Reflect.get(client, name).bind(client);
    Reflect.set(client, name, (...args: unknown[]) => {
      const result = original(...args);
      result.catch(onError);
      return result;
    });
  }
}

export function useRedisAdapter(io: Server, redisUrl: string, prefix: string, log: Logger): RedisAdapterHandle {
  const pub = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectionName: 'socket.io-pub' });
  const sub = new Redis(redisUrl, { maxRetriesPerRequest: null, connectionName: 'socket.io-sub' });

  let down = false;
  let closing = false;
  const warn = (what: string) => (err: Error) => {
    if (down || closing) return;
    down = true;
    log.warn({ err: err.message, what }, 'realtime Redis unavailable: cross-node events paused until it returns');
  };
  pub.on('error', warn('pub'));
  sub.on('error', warn('sub'));
  pub.on('ready', () => {
    if (down) log.info('realtime Redis back');
    down = false;
  });
  guardCommands(pub, ['publish'], warn('publish'));
  guardCommands(sub, ['subscribe', 'psubscribe', 'unsubscribe', 'punsubscribe'], warn('subscribe'));

  io.adapter(createAdapter(pub, sub, { key: `${prefix}socket.io` }));
  return {
    close: () => {
      closing = true;
      pub.disconnect();
      sub.disconnect();
    },
  };
}
