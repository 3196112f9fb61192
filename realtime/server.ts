// Socket.IO for the service: the namespaces of CONTRACT §7 with handshake authentication,
// session revocation, and the Redis adapter when REDIS_URL is set. Pushes are driven by domain
// events (the REST, socket and job paths all publish them), so a push works the same whichever
// path caused it, on every node.
import type { Server as HttpServer } from 'node:http';
import type { TemplatedApp } from 'uWebSockets.js';
import { Server } from 'socket.io';
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';
import { handshakeAuth } from './handshake.js';
import type { RateLimits } from '../http/rate-limit.js';
import { useRedisAdapter, type RedisAdapterHandle } from './redis-adapter.js';
import { attachToUws, closeServer } from './uws-binding.js';
import { NAMESPACES, rooms, type RealtimeServer } from './events.js';
import { socketRateLimit } from './socket-rate-limit.js';
import { registerChatNamespace } from './namespaces/chat.js';
import { registerCommentsNamespace } from './namespaces/comments.js';
import { registerNotificationsNamespace } from './namespaces/notifications.js';
import { registerProcessingNamespace } from './namespaces/processing.js';

export interface Realtime {
  io: Server;
  close(): Promise<void>;
}

/** Largest Socket.IO packet accepted from a client (a chat message with 10 attachments fits easily). */
const MAX_PACKET_BYTES = 64 * 1024;

function buildRealtime(app: AppContext, services: Services, rateLimits: RateLimits | null): { io: RealtimeServer; stop: () => void; redis: RedisAdapterHandle | null } {
  const { config, log } = app;
  const origins = config.CORS_ORIGINS === '*' ? '*' : config.CORS_ORIGINS.split(',').map((o) => o.trim());
  const io: RealtimeServer = new Server({ serveClient: false, maxHttpBufferSize: MAX_PACKET_BYTES, cors: { origin: origins } });
  const redis = config.REDIS_URL ? useRedisAdapter(io, config.REDIS_URL, config.REDIS_PREFIX, log) : null;

  const auth = handshakeAuth(services.callers, log);
  for (const name of NAMESPACES) io.of(name).use(auth);

  const { chat, comments } = services;
  const stops = [
    registerChatNamespace(io.of('/chat'), app, chat, socketRateLimit(rateLimits)),
    registerCommentsNamespace(io.of('/comments'), app, comments),
    registerNotificationsNamespace(io.of('/notifications'), app),
    registerProcessingNamespace(io.of('/processing'), app),
    // A session that ends (logout, revocation) loses its sockets on every node: the adapter
    // carries the disconnect to the node that holds them.
    app.events.subscribe('session.revoked', ({ sessionId }) => {
      for (const name of NAMESPACES) io.of(name).in(rooms.session(sessionId)).disconnectSockets(true);
    }),
  ];
  return { io, redis, stop: () => stops.forEach((stop) => stop()) };
}

function realtimeHandle(built: ReturnType<typeof buildRealtime>, closeIo: () => Promise<void>): Realtime {
  let closing: Promise<void> | null = null;
  return {
    io: built.io,
    close: () =>
      (closing ??= (async () => {
        built.stop();
        await closeIo();
        built.redis?.close();
      })()),
  };
}

/** Socket.IO on the service's uWebSockets.js app (same port, path /socket.io). */
export async function attachRealtime(uws: TemplatedApp, app: AppContext, services: Services, rateLimits: RateLimits | null = null): Promise<Realtime> {
  const built = buildRealtime(app, services, rateLimits);
  attachToUws(built.io, uws);
  return realtimeHandle(built, () => closeServer(built.io));
}

/** The same namespaces on a Node HTTP server (used by bench/sockets.ts to compare with uWS). */
export async function attachRealtimeToHttpServer(server: HttpServer, app: AppContext, services: Services, rateLimits: RateLimits | null = null): Promise<Realtime> {
  const built = buildRealtime(app, services, rateLimits);
  built.io.attach(server);
  return realtimeHandle(built, () => closeServer(built.io));
}
