// The Socket.IO adapters for several nodes (REDIS_URL set), chosen by REALTIME_ADAPTER
// (docs/realtime.md says why `rooms` is the default):
//   rooms    (default, realtime/transport/rooms-adapter.ts) per-room sharded channels, subscribed only where
//            the room has members, plus capped per-room streams read only when a session
//            recovers (on any node), and an outbox for Redis outages.
//   streams  Redis streams (@socket.io/redis-streams-adapter): every node reads one stream per
//            deployment; a dropped client recovers its missed events on any node.
//   pubsub   Redis pub/sub (@socket.io/redis-adapter): every node gets every event; no recovery.
//   sharded  Redis 7 sharded pub/sub (createShardedAdapter, "dynamic" subscriptions): a room's
//            events reach only the nodes that have members in it; no recovery.
// Every key, stream and channel name starts with REDIS_PREFIX + "socket.io" (Redis pub/sub
// ignores the database index, so the prefix is what keeps two deployments apart; the index in
// REDIS_URL is still honoured for the connections, streams and session keys).
//
// Redis must never hold up or break REST: events are published without the caller awaiting, so
// the publishing connection has no offline queue (while Redis is away a publish fails at once
// instead of piling up in memory and replaying stale events later), and every rejected command
// that an adapter fires without awaiting is caught here (an unhandled rejection would end the
// process). Meanwhile each node still delivers to its own sockets. Reading connections keep their
// queue (a blocking stream read or a subscription simply waits for Redis to return) and ioredis
// re-subscribes after a reconnect, so cross-node delivery comes back by itself.
// With streams, pubsub and sharded, what a node publishes while Redis is away never reaches the
// other nodes (they have no outbox), so when a reading connection is back after a drop, every
// socket of this node may have missed events: it is disconnected (CONTRACT §14, §18) and its
// client re-syncs, rather than stay silently short. (The rooms adapter keeps an outbox and tells
// its sockets only when events were really lost: realtime/transport/rooms-adapter.ts.)
import { Redis } from 'ioredis';
import type { Namespace } from 'socket.io';
import { createAdapter as createPubSubAdapter, createShardedAdapter } from '@socket.io/redis-adapter';
import { createAdapter as createStreamsAdapter } from '@socket.io/redis-streams-adapter';
import type { Logger } from '../../src/shared/logger.js';
import type { AdapterFactory } from './recovery.js';
import { createRoomsAdapter, RoomsCluster, type RoomsAdapterStats } from './rooms-adapter.js';

export type RedisAdapterKind = 'rooms' | 'streams' | 'pubsub' | 'sharded';

export interface RedisAdapter {
  factory: AdapterFactory;
  /** Whether sessions persisted by one node can be restored by another (connection state recovery). */
  recovers: boolean;
  /** Resolves once every command sent so far (persisted sessions, events) has reached Redis (bounded). */
  flush(): Promise<void>;
  close(): void;
  /** The `rooms` adapter's counters (subscriptions, outbox), for the metrics and the tests. */
  stats?: () => RoomsAdapterStats;
}

/**
 * Entries kept in the stream (approximate trimming). Recovery needs the client's last offset to be
 * still there: at 100 room messages a second that is more than the two-minute window.
 */
const STREAM_MAX_LEN = 20_000;
const FLUSH_TIMEOUT_MS = 2_000;

/** Swallows (and logs, at most once per outage) rejections of the commands an adapter fires without awaiting. */
function guardCommands(client: Redis, names: string[], onError: (err: Error) => void): void {
  for (const name of names) {
    const original = (Reflect.get(client, name) as (...args: unknown[]) => Promise<unknown>).bind(client);
    Reflect.set(client, name, (...args: unknown[]) => {
      const result = original(...args);
      result.catch(onError);
      return result;
    });
  }
}

/** The connections of one adapter and the one warning per outage. */
class Connections {
  private down = false;
  private closing = false;
  /** A reading connection dropped and none has come back since. */
  private readerDropped = false;
  private readonly all: Redis[] = [];
  private readonly namespaces = new Set<Namespace>();

  constructor(
    private readonly url: string,
    private readonly log: Logger,
  ) {}

  /** `factory`, noting each namespace it serves (whose sockets are told after an outage). */
  serving(factory: AdapterFactory): AdapterFactory {
    const namespaces = this.namespaces;
    return function (nsp: Namespace) {
      namespaces.add(nsp);
      return factory(nsp);
    };
  }

  readonly warn = (what: string) => (err: Error) => {
    if (this.down || this.closing) return;
    this.down = true;
    this.log.warn({ err: err.message, what }, 'realtime Redis unavailable: cross-node events paused until it returns');
  };

  /** For commands fired and forgotten: no offline queue, one attempt. */
  publisher(name: string): Redis {
    const pub = this.track(new Redis(this.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectionName: name }), name);
    pub.on('ready', () => {
      if (this.down) this.log.info('realtime Redis back');
      this.down = false;
    });
    return pub;
  }

  /** For subscriptions and blocking reads: they wait for Redis to return. */
  reader(name: string): Redis {
    const reader = this.track(new Redis(this.url, { maxRetriesPerRequest: null, connectionName: name }), name);
    reader.on('close', () => {
      if (!this.closing) this.readerDropped = true;
    });
    reader.on('ready', () => {
      if (!this.readerDropped || this.closing) return;
      this.readerDropped = false;
      this.log.warn('realtime Redis back after an outage: events published meanwhile did not cross nodes, sockets disconnected so that their clients re-sync');
      for (const nsp of this.namespaces) nsp.local.disconnectSockets(true);
    });
    return reader;
  }

  close(): void {
    this.closing = true;
    for (const client of this.all) client.disconnect();
  }

  private track(client: Redis, name: string): Redis {
    client.on('error', this.warn(name));
    this.all.push(client);
    return client;
  }
}

async function flushed(pub: Redis): Promise<void> {
  // Commands on one connection are answered in order: once PING is, everything before it was.
  await Promise.race([pub.ping().catch(() => undefined), new Promise((r) => setTimeout(r, FLUSH_TIMEOUT_MS).unref())]);
}

function streams(connections: Connections, prefix: string): RedisAdapter {
  const pub = connections.publisher('socket.io-streams-pub');
  guardCommands(pub, ['set', 'publish'], connections.warn('publish'));
  // The adapter opens its stream reader and its subscriber with `duplicate()`; they must keep an
  // offline queue (a reader without one would spin on failed reads while Redis is away).
  let readers = 0;
  Reflect.set(pub, 'duplicate', () => {
    const reader = connections.reader(`socket.io-streams-read-${++readers}`);
    guardCommands(reader, ['subscribe'], connections.warn('subscribe'));
    return reader;
  });
  const factory = connections.serving(
    createStreamsAdapter(pub, {
      streamName: `${prefix}socket.io`,
      channelPrefix: `${prefix}socket.io`,
      sessionKeyPrefix: `${prefix}socket.io:session:`,
      maxLen: STREAM_MAX_LEN,
      // Every payload we emit is JSON (no binary), so the per-event binary scan is skipped.
      onlyPlaintext: true,
    }),
  );
  return { factory, recovers: true, flush: () => flushed(pub), close: () => connections.close() };
}

function pubsub(connections: Connections, prefix: string): RedisAdapter {
  const pub = connections.publisher('socket.io-pub');
  const sub = connections.reader('socket.io-sub');
  guardCommands(pub, ['publish'], connections.warn('publish'));
  guardCommands(sub, ['subscribe', 'psubscribe', 'unsubscribe', 'punsubscribe'], connections.warn('subscribe'));
  const factory = connections.serving(createPubSubAdapter(pub, sub, { key: `${prefix}socket.io` }));
  return { factory, recovers: false, flush: () => flushed(pub), close: () => connections.close() };
}

function sharded(connections: Connections, prefix: string): RedisAdapter {
  const pub = connections.publisher('socket.io-sharded-pub');
  const sub = connections.reader('socket.io-sharded-sub');
  guardCommands(pub, ['spublish'], connections.warn('publish'));
  guardCommands(sub, ['ssubscribe', 'sunsubscribe'], connections.warn('subscribe'));
  const factory = connections.serving(createShardedAdapter(pub, sub, { channelPrefix: `${prefix}socket.io`, subscriptionMode: 'dynamic' }));
  return { factory, recovers: false, flush: () => flushed(pub), close: () => connections.close() };
}

function rooms(redisUrl: string, prefix: string, log: Logger, outboxMaxEvents: number): RedisAdapter {
  const cluster = new RoomsCluster(redisUrl, prefix, log, outboxMaxEvents);
  return {
    factory: createRoomsAdapter(cluster),
    recovers: true,
    flush: () => cluster.flushed(FLUSH_TIMEOUT_MS),
    close: () => cluster.close(),
    stats: () => ({ ...cluster.stats }),
  };
}

/** `outboxMaxEvents`: the rooms adapter's outbox bound (REALTIME_OUTBOX_MAX_EVENTS). */
export function redisAdapter(kind: RedisAdapterKind, redisUrl: string, prefix: string, log: Logger, outboxMaxEvents: number): RedisAdapter {
  if (kind === 'rooms') return rooms(redisUrl, prefix, log, outboxMaxEvents);
  const connections = new Connections(redisUrl, log);
  if (kind === 'pubsub') return pubsub(connections, prefix);
  if (kind === 'sharded') return sharded(connections, prefix);
  return streams(connections, prefix);
}
