// Realtime metrics of a node, observed from outside the Socket.IO set-up (realtime/server.ts and
// the adapter stay as they are): sockets per namespace, connections, events delivered to clients,
// and — with several nodes — what goes through the cluster adapter (Redis): operations published
// to the other nodes, request/response round-trips and their failures.
//
// How each is seen:
// - deliveries: an event reaches a client on one of two paths. Socket.IO on uWebSockets.js sends
//   a broadcast to one room as a single uWS `publish` to the room's topic, which uWS copies to
//   every websocket subscribed to it (no per-socket hook runs: socket.onAnyOutgoing misses these);
//   everything else (polling clients, direct emits, multi-room broadcasts) is written packet by
//   packet through each client's Engine.IO socket, which emits `packetCreate`. So deliveries are
//   the subscribers of each published topic plus the event packets Engine.IO writes, whichever
//   node the emit started on. The event name is read from the head of the encoded packet;
// - publishes: the adapter's own operations (broadcast, socketsJoin/Leave, disconnectSockets,
//   serverSideEmit) are wrapped on each namespace's adapter instance; without the `local` flag a
//   cluster adapter publishes them to the other nodes;
// - round-trips: fetchSockets (a request every node answers) is timed, and every scrape asks the
//   adapter how many nodes there are (`serverCount`: a PUBSUB NUMSUB round-trip with the Redis
//   pub/sub adapter, the heartbeat table with the streams adapter), timed the same way;
// - errors: rejected round-trips, rejected publishes (adapters built on socket.io-adapter's
//   ClusterAdapter publish through `doPublish`), and error events of an adapter's Redis clients.
import { EventEmitter } from 'node:events';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Namespace, Server } from 'socket.io';
import type { TemplatedApp } from 'uWebSockets.js';
import { LATENCY_BUCKETS } from '../../metrics.js';
import { adapterMethod, adapterProperty, replaceAdapterMethod } from './socketio-internals.js';
import type { RoomsAdapterStats } from './rooms-adapter.js';

/** Longest a scrape waits for the adapter's node count. */
const SERVER_COUNT_TIMEOUT_MS = 2_000;

/** Adapter operations that reach the other nodes unless flagged local. */
const PUBLISHING_OPERATIONS = ['broadcast', 'broadcastWithAck', 'addSockets', 'delSockets', 'disconnectSockets', 'serverSideEmit'] as const;

export interface RealtimeMetricsOptions {
  /** A cluster adapter (Redis) is in use: adapter operations are counted. */
  clustered: boolean;
  /** The rooms adapter's own counters (REALTIME_ADAPTER=rooms), null with another adapter. */
  adapterStats?: () => RoomsAdapterStats | null;
}

/**
 * The namespace and event of an encoded Socket.IO EVENT or BINARY_EVENT packet
 * (`2/chat,["message:new",…]`, `2["x"]`, `51-/chat,12["x",…]`), or null for any other packet.
 */
export function eventOfPacket(encoded: string): { namespace: string; event: string } | null {
  const m = /^[25](?:\d+-)?(\/[^,[]*)?,?\d*\["((?:[^"\\]|\\.){1,100})"/.exec(encoded.slice(0, 256));
  return m ? { namespace: m[1] ?? '/', event: m[2] } : null;
}

export function instrumentRealtime(io: Server, uws: TemplatedApp, registry: Registry, options: RealtimeMetricsOptions): void {
  const registers = [registry];
  const stats = options.adapterStats;
  if (stats) {
    // What reaches this node from the others (CONTRACT §25: a node hears only its own sockets' rooms).
    new Counter({
      name: 'socketio_adapter_received_total',
      help: 'Cluster messages this node received from Redis (rooms adapter: only the channels of rooms it has sockets in, and namespace-wide ones)',
      registers,
      collect() {
        this.reset();
        this.inc(stats()?.received ?? 0);
      },
    });
    new Gauge({
      name: 'socketio_adapter_room_subscriptions',
      help: 'Room channels this node is subscribed to (rooms adapter)',
      registers,
      collect() {
        this.set(stats()?.subscribedRooms ?? 0);
      },
    });
  }
  new Gauge({
    name: 'socketio_sockets',
    help: 'Sockets connected to this node, by namespace',
    labelNames: ['namespace'],
    registers,
    collect() {
      this.reset();
      for (const [name, nsp] of io._nsps) this.set({ namespace: name }, nsp.sockets.size);
    },
  });
  const connections = new Counter({
    name: 'socketio_connections_total',
    help: 'Sockets accepted by this node, by namespace',
    labelNames: ['namespace'],
    registers,
  });
  const delivered = new Counter({
    name: 'socketio_events_delivered_total',
    help: 'Events written to clients connected to this node, by namespace and event',
    labelNames: ['namespace', 'event'],
    registers,
  });
  const publishes = new Counter({
    name: 'socketio_adapter_publishes_total',
    help: 'Adapter operations this node published to the other nodes (Redis), by namespace and operation',
    labelNames: ['namespace', 'operation'],
    registers,
  });
  const roundTrips = new Histogram({
    name: 'socketio_adapter_roundtrip_seconds',
    help: 'Adapter requests that wait for other nodes or for Redis (fetch_sockets, server_count), by operation',
    labelNames: ['operation'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const errors = new Counter({
    name: 'socketio_adapter_errors_total',
    help: 'Adapter failures: rejected publishes and round-trips, Redis connection errors',
    labelNames: ['operation'],
    registers,
  });
  const watchedClients = new WeakSet<object>();

  const timed = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    const end = roundTrips.startTimer({ operation });
    try {
      return await run();
    } catch (err) {
      errors.inc({ operation });
      throw err;
    } finally {
      end();
    }
  };

  const instrumentAdapter = (nsp: Namespace) => {
    const adapter = nsp.adapter;
    const namespace = nsp.name;
    for (const operation of PUBLISHING_OPERATIONS) {
      const original = adapterMethod(adapter, operation);
      if (!original) continue;
      replaceAdapterMethod(adapter, operation, (...args: unknown[]) => {
        // broadcast(packet, opts) and the others (opts, …) carry the flags in their options.
        const opts: unknown = operation.startsWith('broadcast') ? args[1] : args[0];
        const flags: unknown = typeof opts === 'object' && opts !== null ? Reflect.get(opts, 'flags') : undefined;
        const local = typeof flags === 'object' && flags !== null && Reflect.get(flags, 'local') === true;
        if (!local) publishes.inc({ namespace, operation });
        return original(...args);
      });
    }
    const fetchSockets = adapterMethod(adapter, 'fetchSockets');
    if (fetchSockets) replaceAdapterMethod(adapter, 'fetchSockets', (...args: unknown[]) => timed('fetch_sockets', async () => fetchSockets(...args)));
    for (const name of ['doPublish', 'doPublishResponse']) {
      const original = adapterMethod(adapter, name);
      if (!original) continue;
      replaceAdapterMethod(adapter, name, (...args: unknown[]) => {
        const result = original(...args);
        if (result instanceof Promise) result.catch(() => errors.inc({ operation: 'publish' }));
        return result;
      });
    }
    for (const client of [adapterProperty(adapter, 'pubClient'), adapterProperty(adapter, 'subClient')]) {
      if (!(client instanceof EventEmitter) || watchedClients.has(client)) continue;
      watchedClients.add(client);
      client.on('error', () => errors.inc({ operation: 'connection' }));
    }
  };

  const countDelivery = (encoded: unknown, recipients: number) => {
    if (typeof encoded !== 'string' || recipients === 0) return;
    const packet = eventOfPacket(encoded);
    if (packet) delivered.inc(packet, recipients);
  };
  // Packets written through Engine.IO, one client each (binary attachments follow as buffers).
  io.engine.on('connection', (client: EventEmitter) => {
    client.on('packetCreate', (packet: { type: string; data?: unknown }) => {
      if (packet.type === 'message') countDelivery(packet.data, 1);
    });
  });
  // Room broadcasts published to uWS topics: "4" (an Engine.IO message) + the Socket.IO packet.
  const publish = uws.publish.bind(uws);
  uws.publish = (topic, message, isBinary, compress) => {
    if (!isBinary && typeof message === 'string' && message.startsWith('4')) countDelivery(message.slice(1), uws.numSubscribers(topic));
    return publish(topic, message, isBinary, compress);
  };

  const instrumentNamespace = (nsp: Namespace) => {
    if (options.clustered) instrumentAdapter(nsp);
    nsp.on('connection', () => connections.inc({ namespace: nsp.name }));
  };
  for (const nsp of io._nsps.values()) instrumentNamespace(nsp);
  io.on('new_namespace', instrumentNamespace);

  if (options.clustered) {
    new Gauge({
      name: 'socketio_adapter_nodes',
      help: 'Nodes the adapter sees (this one included), asked at every scrape',
      registers,
      async collect() {
        const adapter = io.of('/').adapter;
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('serverCount timed out')), SERVER_COUNT_TIMEOUT_MS);
        });
        try {
          this.set(await timed('server_count', () => Promise.race([adapter.serverCount(), timeout])));
        } catch {
          // Counted as an error; the gauge keeps its last value.
        } finally {
          clearTimeout(timer);
        }
      },
    });
  }
}
