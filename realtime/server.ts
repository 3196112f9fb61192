// Socket.IO for the service: the declared namespaces of CONTRACT §7 (realtime/namespaces/) put on
// the transport (realtime/transport/): handshake authentication and connection limits
// (handshake.ts), every handler behind one edge (socket-edge.ts: rate limits, clients that go
// away), session revocation, connection state recovery for its owner only (recovery.ts,
// recovery-owner.ts), the hand-over of sockets on stop (handover.ts), and a Redis adapter when
// REDIS_URL is set. Pushes are driven by domain events (the REST, socket and job paths all
// publish them), so a push works the same whichever path caused it, on every node. The door
// offers the domain's long-lived services its ports (ports.ts); it starts none of them.
import type { TemplatedApp } from 'uWebSockets.js';
import { Server } from 'socket.io';
import { SessionAwareAdapter } from 'socket.io-adapter';
import type { AppContext } from '../src/context.js';
import type { LivePorts, Services } from '../src/services.js';
import { realtimePorts } from './ports.js';
import type { Caller } from '../src/auth/index.js';
import { commonHandshake } from './transport/handshake.js';
import type { RateLimitCounter } from '../src/shared/rate-limits.js';
import { redisAdapter, type RedisAdapter } from './transport/redis-adapter.js';
import type { RoomsAdapterStats } from './transport/rooms-adapter.js';
import { connectionStateRecovery, recoverable, type AdapterFactory } from './transport/recovery.js';
import { checkRecoveryClaims } from './transport/recovery-owner.js';
import { ConnectionLimit } from './transport/connection-limit.js';
import { NamespaceEdge } from './transport/socket-edge.js';
import { handOverSockets } from './transport/handover.js';
import { attachToUws, closeServer } from './transport/uws-binding.js';
import type { RealtimeServer } from './socket-types.js';
import type { TypedRealtimeServer } from './events.js';
import { rooms } from './rooms.js';
import { socketRateLimit } from './transport/socket-rate-limit.js';
import { NAMESPACES, namespaces } from './namespaces/index.js';
import { HSTS, overHttps } from '../src/shared/transport-security.js';

export interface Realtime {
  io: Server;
  /** Closes every connection's transport so its client reconnects elsewhere and recovers (on SIGTERM). */
  handOver(): Promise<void>;
  close(): Promise<void>;
  /** The `rooms` adapter's counters (subscriptions, outbox), null with another adapter. */
  adapterStats(): RoomsAdapterStats | null;
  /** What the door offers the domain's long-lived services (the composition root starts them on it). */
  ports: LivePorts;
}

/** Largest Socket.IO packet accepted from a client (a chat message with 10 attachments fits easily). */
const MAX_PACKET_BYTES = 64 * 1024;

/**
 * SessionAwareAdapter sweeps expired sessions on an interval it never clears, so the interval
 * keeps the adapter, and through its namespace the whole stopped service, for the life of the
 * process (a process that starts services in turn, as the test suite does, would keep them all).
 * Closed, this one lets go of its namespace and what it kept; the sweep then walks empty lists.
 */
class ClosableSessionAdapter extends SessionAwareAdapter {
  override close(): void {
    const kept = this as unknown as Record<string, unknown> & { sessions: Map<string, unknown>; packets: unknown[] };
    kept.sessions.clear();
    kept.packets.length = 0;
    this.rooms.clear();
    this.sids.clear();
    kept.nsp = null;
    // Methods set on the instance (realtime/transport/recovery.ts wraps two) close over the namespace.
    for (const key of Object.keys(kept)) if (typeof kept[key] === 'function') delete kept[key];
  }
}

/** One node's own sessions and event log, for connection state recovery without Redis. */
const inMemoryAdapter: AdapterFactory = function (nsp) {
  return new ClosableSessionAdapter(nsp);
};

/** What the realtime door is given: the handshake's caller check, who may have a push, and what the namespaces use. */
export type RealtimeServices = Pick<Services, 'callers' | 'liveAudience' | (typeof namespaces)[number]['uses'][number]>;

function buildRealtime(
  app: AppContext,
  services: RealtimeServices,
  rateLimits: RateLimitCounter | null,
): { io: RealtimeServer; stop: () => void; redis: RedisAdapter | null } {
  const { config, log } = app;
  const origins = config.CORS_ORIGINS === '*' ? '*' : config.CORS_ORIGINS.split(',').map((o) => o.trim());
  const redis = config.REDIS_URL ? redisAdapter(config.REALTIME_ADAPTER, config.REDIS_URL, config.REDIS_PREFIX, log, config.REALTIME_OUTBOX_MAX_EVENTS) : null;
  // Recovery where the adapter keeps what a dropped client missed: this node's memory (no Redis)
  // or the Redis stream (any node). The pub/sub adapters keep nothing, so they go without.
  let adapter: AdapterFactory;
  if (!redis) adapter = recoverable(inMemoryAdapter, 'memory');
  else if (redis.recovers) adapter = recoverable(redis.factory, config.REALTIME_ADAPTER === 'rooms' ? 'rooms' : 'stream');
  else adapter = redis.factory;
  const recovers = !redis || redis.recovers;
  const typed: TypedRealtimeServer = new Server({
    serveClient: false,
    maxHttpBufferSize: MAX_PACKET_BYTES,
    cors: { origin: origins },
    adapter,
    ...(recovers ? { connectionStateRecovery } : {}),
  });
  // Built with the maps the declarations derive; their code reaches it through the open types.
  const io: RealtimeServer = typed;

  // Every namespace: the common handshake steps first, then the namespace's own.
  const limit = new ConnectionLimit();
  const shared = { log, rateLimit: socketRateLimit(rateLimits), refreshCaller: (caller: Caller) => services.callers.refresh(caller) };
  const common = commonHandshake(services.callers, limit);
  const edges = new Map(
    NAMESPACES.map((name) => {
      const edge = new NamespaceEdge(io.of(name), shared);
      for (const step of common) edge.use(step);
      if (recovers) checkRecoveryClaims(io.of(name), services.callers, limit, log);
      return [name, edge] as const;
    }),
  );

  const stops = [
    // Each declared namespace on its edge: its handshake step, client events and pushes.
    ...namespaces.map((declared) => declared.mount(edges.get(declared.name)!, { app, services })),
    // A session that ends (logout, revocation) loses its sockets on every node. Every node hears
    // of it without Redis (src/auth/revocations.ts) and drops the sockets it holds; the node that
    // ended it also sends the disconnect through the adapter, for a node that did not hear.
    app.events.handle('session.revoked', 'realtime session-end', ({ sessionId, here }) => {
      for (const name of NAMESPACES) (here ? io.of(name) : io.of(name).local).in(rooms.session(sessionId)).disconnectSockets(true);
    }),
  ];
  return { io, redis, stop: () => stops.forEach((stop) => stop()) };
}

function realtimeHandle(app: AppContext, built: ReturnType<typeof buildRealtime>, closeIo: () => Promise<void>): Realtime {
  let closing: Promise<void> | null = null;
  const persisted = () => built.redis?.flush() ?? Promise.resolve();
  return {
    io: built.io,
    ports: realtimePorts(built.io, Boolean(app.config.REDIS_URL)),
    adapterStats: () => built.redis?.stats?.() ?? null,
    handOver: () => handOverSockets(built.io, persisted, app.config.SHUTDOWN_TIMEOUT_MS, app.log),
    close: () =>
      (closing ??= (async () => {
        built.stop();
        await closeIo();
        built.redis?.close();
      })()),
  };
}

/** Socket.IO on the service's uWebSockets.js app (same port, path /socket.io). */
export async function attachRealtime(
  uws: TemplatedApp,
  app: AppContext,
  services: RealtimeServices,
  rateLimits: RateLimitCounter | null = null,
): Promise<Realtime> {
  const built = buildRealtime(app, services, rateLimits);
  attachToUws(built.io, uws, { nativePublish: app.config.REALTIME_NATIVE_PUBLISH === 'on' });
  // engine.io writes the polling answers (and the websocket upgrade) itself; it asks for extra
  // headers on each through this event, so HSTS reaches them as it reaches every REST answer.
  built.io.engine.on('headers', (headers: Record<string, string>, req: { headers: Record<string, string> }) => {
    if (overHttps(req.headers, app.config.TRUST_PROXY)) headers['Strict-Transport-Security'] = HSTS;
  });
  return realtimeHandle(app, built, () => closeServer(built.io));
}
