// The composition root: builds one node of the service from its configuration and starts it.
// Used by main.ts (the process) and by the tests (which boot the real server in-process).
import fs from 'node:fs';
import uWS, { type us_listen_socket } from 'uWebSockets.js';
import { Redis } from 'ioredis';
import type { Config } from './src/config.js';
import type { AppContext } from './src/context.js';
import { openDatabase } from './src/db/client.js';
import { applyMigrations, STARTUP_LOCK_KEY } from './src/db/migrate.js';
import { createLogger, type Logger } from './src/shared/logger.js';
import { EventBus } from './src/shared/events.js';
import type { DomainEvents } from './src/events.js';
import { OutboxSmsProvider } from './src/sms/provider.js';
import { ensureAdministrator, seedRolesAndPermissions } from './src/authorization/seed.js';
import { createServices, type Services } from './src/services.js';
import { createHttpServer, type HttpServer } from './http/server.js';
import { RateLimits } from './http/rate-limit.js';
import { routeModules } from './http/routes/index.js';
import { healthRoutes } from './http/routes/health.js';
import { registerRawRoutes } from './http/raw-routes.js';
import { attachRealtime, type Realtime } from './realtime/server.js';
import { startJobs, type RunningJobs } from './jobs/index.js';

export interface RunningService {
  config: Config;
  app: AppContext;
  services: Services;
  http: HttpServer;
  realtime: Realtime;
  /** The node's rate-limit counters (shared through Redis when configured). */
  rateLimits: RateLimits;
  port: number;
  /** http://host:port of this node. */
  url: string;
  /** Graceful stop: stop accepting, finish in-flight work (bounded), close sockets and storage. */
  close(): Promise<void>;
}

export async function startService(config: Config, logger?: Logger): Promise<RunningService> {
  const log = logger ?? createLogger(config.LOG_LEVEL);
  for (const dir of [config.dataDir, config.mediaDir, config.tmpDir]) fs.mkdirSync(dir, { recursive: true });

  const database = await openDatabase(config, log);
  let redis: Redis | null = null;
  let ready = false;
  try {
    const app: AppContext = {
      config,
      database,
      log,
      events: new EventBus<DomainEvents>(log),
      sms: new OutboxSmsProvider(config.smsOutboxFile),
    };
    await database.withAdvisoryLock(STARTUP_LOCK_KEY, async () => {
      await applyMigrations(database, log);
      await seedRolesAndPermissions(app);
      await ensureAdministrator(app);
    });
    const services = await createServices(app);

    if (config.REDIS_URL) {
      // No offline queue: while Redis is away, rate limits fall back to memory at once instead of
      // requests waiting on a queue.
      redis = new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
      redis.on('error', (err) => log.warn({ err: err.message }, 'redis (rate limits) error'));
      // Give Redis a moment to connect; if it cannot, serve anyway (limits fall back to memory,
      // /readyz says 503 until Redis answers).
      const connected = new Promise<void>((resolve) => redis!.once('ready', () => resolve()));
      await Promise.race([connected, new Promise((r) => setTimeout(r, 5_000).unref())]);
    }
    const rateLimits = new RateLimits(config.RATE_LIMIT_SCALE, redis, config.REDIS_PREFIX);

    const isReady = async () => {
      if (!ready) return false;
      try {
        await database.ping();
        if (redis) await redis.ping();
        return true;
      } catch {
        return false;
      }
    };
    const routes = [...healthRoutes(isReady), ...routeModules.flatMap((m) => m(app, services))];
    const http = createHttpServer({
      app,
      callers: services.callers,
      rateLimits,
      routes,
      registerRaw: (uws, openExchange) => registerRawRoutes(uws, app, routes, openExchange),
    });
    const realtime = await attachRealtime(http.uws, app, services, rateLimits);
    const jobs: RunningJobs = await startJobs(app, services);

    const listenSocket = await new Promise<us_listen_socket>((resolve, reject) => {
      http.uws.listen(config.HOST, config.PORT, (socket) => {
        if (socket) resolve(socket);
        else reject(new Error(`cannot listen on ${config.HOST}:${config.PORT}`));
      });
    });
    const port = uWS.us_socket_local_port(listenSocket);
    if (!config.PUBLIC_BASE_URL) config.publicBaseUrl = `http://localhost:${port}`;
    ready = true;
    log.info({ port, mode: database.mode, redis: Boolean(redis) }, 'service listening');

    let closing: Promise<void> | null = null;
    const close = () =>
      (closing ??= (async () => {
        ready = false;
        uWS.us_listen_socket_close(listenSocket);
        await jobs.stop(config.SHUTDOWN_TIMEOUT_MS);
        await http.drain(config.SHUTDOWN_TIMEOUT_MS);
        await realtime.close();
        if (redis) redis.disconnect();
        await database.close();
        log.info('service stopped');
      })());

    const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
    return { config, app, services, http, realtime, rateLimits, port, url: `http://${host}:${port}`, close };
  } catch (err) {
    redis?.disconnect();
    await database.close().catch(() => undefined);
    throw err;
  }
}
