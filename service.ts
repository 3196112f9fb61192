// The composition root: builds one node of the service from its configuration and starts it.
// Used by main.ts (the process) and by the tests (which boot the real server in-process).
import fs from 'node:fs';
import uWS, { type TemplatedApp, type us_listen_socket } from 'uWebSockets.js';
import { Redis } from 'ioredis';
import { withPublicBaseUrl, type Config } from './src/config.js';
import type { AppContext } from './src/context.js';
import { openDatabase } from './src/db/client.js';
import { applyMigrations, STARTUP_LOCK_KEY } from './src/db/migrate.js';
import { createLogger, type Logger } from './src/shared/logger.js';
import { pick } from './src/shared/pick.js';
import { DomainEventBus } from './src/event-bus.js';
import { createSmsProvider } from './src/sms/provider.js';
import { createMediaStore } from './src/media/storage/create-store.js';
import { ensureAdministrator, seedRolesAndPermissions } from './src/authorization/seed.js';
import { createRepositories, createServices, startLiveServices, type ServiceSeams, type Services } from './src/services.js';
import { createHttpServer, type HttpServer } from './http/server.js';
import { RateLimits } from './http/rate-limit.js';
import { routeModules } from './http/routes/index.js';
import { healthRoutes } from './http/routes/health.js';
import { RAW_ROUTE_SERVICES, registerRawRoutes } from './http/raw-routes.js';
import { attachRealtime, type Realtime } from './realtime/server.js';
import { buildAsyncApiDocument } from './realtime/asyncapi.js';
import { startJobs, type RunningJobs } from './jobs/index.js';
import { NodeMetrics } from './metrics.js';
import { transportDecision, transportState } from './http/transport.js';
import { releasableApp } from './http/releasable-app.js';
import { httpMetrics } from './http/metrics.js';
import { registerMetricsRoute } from './http/metrics-route.js';
import { instrumentRealtime } from './realtime/transport/metrics.js';
import { jobMetrics } from './jobs/metrics.js';

/** The longest a Redis command waits for its answer. */
const REDIS_COMMAND_TIMEOUT_MS = 1_000;

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

function listen(uws: TemplatedApp, host: string, port: number): Promise<us_listen_socket> {
  return new Promise((resolve, reject) => {
    uws.listen(host, port, (socket) => {
      if (socket) resolve(socket);
      else reject(new Error(`cannot listen on ${host}:${port}`));
    });
  });
}

/** `seams`: what tests put in place of the outside world (src/services.ts ServiceSeams). */
export async function startService(given: Config, logger?: Logger, seams: ServiceSeams = {}): Promise<RunningService> {
  let config = given;
  const log = logger ?? createLogger(config.LOG_LEVEL);
  const dirs = config.MEDIA_STORAGE === 'local' ? [config.dataDir, config.mediaDir, config.tmpDir] : [config.dataDir, config.tmpDir];
  for (const dir of dirs) fs.mkdirSync(dir, { recursive: true });

  // The slow JavaScript fallback of uWebSockets.js is refused unless the operator allows it (http/transport.ts).
  const { transport, fallbackServes } = transportState();
  const decision = transportDecision(
    { transport, fallbackServes },
    { allowSlowTransport: config.ALLOW_SLOW_TRANSPORT, fallbackForced: config.UWS_USE_FALLBACK },
  );
  if (!decision.start) throw new Error(decision.reason);
  if (decision.warning) log.warn(decision.warning);
  const metrics = new NodeMetrics(config.embeddedDatabase ? 'embedded' : 'server', transport);

  const database = await openDatabase(config, log, metrics.observeQuery);
  metrics.watchDatabase(database);
  let redis: Redis | null = null;
  let ready = false;
  // Its handlers are let go once the service stops (http/releasable-app.ts).
  const { app: uws, release: releaseHandlers } = releasableApp(uWS.App());
  let listenSocket: us_listen_socket | null = null;
  try {
    // PORT=0 (any free port): the port, and so the default public base URL, is known only once
    // taken, so it is taken first and the configuration completed before anything is built from
    // it (it is frozen; nobody can reach a port no one was told of before the routes are added).
    // A fixed port is listened on last, once every route is in place.
    if (config.PORT === 0) {
      listenSocket = await listen(uws, config.HOST, 0);
      config = withPublicBaseUrl(config, uWS.us_socket_local_port(listenSocket));
    }
    const app: AppContext = {
      config,
      database,
      log,
      events: new DomainEventBus(log),
      sms: createSmsProvider(config),
      media: createMediaStore(config, metrics.observeStore),
    };
    const repositories = createRepositories(database);
    await database.withAdvisoryLock(STARTUP_LOCK_KEY, async () => {
      await applyMigrations(database, log);
      await seedRolesAndPermissions(database, repositories.roles);
      await ensureAdministrator(app, repositories.users);
    });

    if (config.REDIS_URL) {
      // No offline queue: while Redis is away, rate limits fall back to memory at once instead of
      // requests waiting on a queue; and a command that gets no answer (a link that stops
      // answering without closing) fails after a second instead of holding its request.
      redis = new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false, commandTimeout: REDIS_COMMAND_TIMEOUT_MS });
      redis.on('error', (err) => log.warn({ err: err.message }, 'redis (rate limits, presence) error'));
      // Give Redis a moment to connect; if it cannot, serve anyway (limits fall back to memory,
      // /readyz says 503 until Redis answers).
      const connected = new Promise<void>((resolve) => redis!.once('ready', () => resolve()));
      await Promise.race([connected, new Promise((r) => setTimeout(r, 5_000).unref())]);
    }
    // Built once Redis is known: presence keeps its cross-node state there.
    const services = await createServices(app, repositories, redis, seams);
    const rateLimits = new RateLimits(config.RATE_LIMIT_SCALE, redis, config.REDIS_PREFIX);
    metrics.watchReadModel(services.readModel);
    metrics.watchListingIndex(services.listingIndex);
    services.views.start();
    const httpCounters = httpMetrics(metrics.registry);
    rateLimits.onRefused = httpCounters.onRateLimitRefused;

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
    const routes = [
      ...healthRoutes(isReady, transport, services.publishing.switchedOff, app.media, services.listingIndex),
      ...routeModules.flatMap((m) => m.routes(app, pick(services, m.uses))),
    ];
    const http = createHttpServer({
      uws,
      app,
      callers: services.callers,
      rateLimits,
      routes,
      registerRaw: (uws, openExchange) => {
        registerRawRoutes(uws, {
          app,
          services: pick(services, RAW_ROUTE_SERVICES),
          callers: services.callers,
          rateLimits,
          routes,
          openExchange,
          asyncApiDocument: buildAsyncApiDocument,
        });
        registerMetricsRoute(uws, config.METRICS_TOKEN, metrics, openExchange);
      },
      onAnswered: httpCounters.onAnswered,
    });
    const realtime = await attachRealtime(http.uws, app, services, rateLimits);
    instrumentRealtime(realtime.io, http.uws, metrics.registry, { clustered: Boolean(config.REDIS_URL), adapterStats: () => realtime.adapterStats() });
    // The domain's long-lived services, on the door's ports; before the jobs, whose video worker
    // publishes what they follow.
    const stopLiveServices = startLiveServices(services, realtime.ports);
    const jobCounters = jobMetrics(metrics.registry, app, pick(services, ['videoJobs']));
    const jobs: RunningJobs = await startJobs(app, services, jobCounters.observeVideoRun);
    services.campaignDelivery.start();

    listenSocket ??= await listen(uws, config.HOST, config.PORT);
    const listening = listenSocket;
    const port = uWS.us_socket_local_port(listening);
    ready = true;
    log.info({ port, mode: database.mode, redis: Boolean(redis) }, 'service listening');

    let closing: Promise<void> | null = null;
    const close = () =>
      (closing ??= (async () => {
        ready = false;
        uWS.us_listen_socket_close(listening);
        // Presence stops counting first: sockets handed over are not taken offline (they reconnect
        // to another node; with one node their last_seen_at is written here).
        await services.presence.stop();
        // Sockets first: their clients reconnect to another node and recover what they miss.
        await realtime.handOver();
        await jobs.stop(config.SHUTDOWN_TIMEOUT_MS);
        jobCounters.stop();
        await http.drain(config.SHUTDOWN_TIMEOUT_MS);
        // Served impressions recorded, unserved blocks given back, before the database closes.
        await services.campaignDelivery.stop();
        services.resumableUploads.stop();
        stopLiveServices();
        await realtime.close();
        services.revocations.close();
        services.listingIndex.stop();
        await services.readModel.close();
        // Every buffered playback report is written before the database closes (CONTRACT §26).
        await services.views.stop();
        rateLimits.close();
        if (redis) redis.disconnect();
        await database.close();
        releaseHandlers();
        log.info('service stopped');
      })());

    const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
    return { config, app, services, http, realtime, rateLimits, port, url: `http://${host}:${port}`, close };
  } catch (err) {
    if (listenSocket) uWS.us_listen_socket_close(listenSocket);
    redis?.disconnect();
    await database.close().catch(() => undefined);
    releaseHandlers();
    throw err;
  }
}
