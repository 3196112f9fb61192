// The uWebSockets.js facade. Every answer goes through one writer (http/exchange.ts); every
// declared route runs its pipeline of named steps (http/pipeline.ts). Before a route's pipeline
// runs, the server answers CORS preflights, matches the route, and refuses bodies by declared
// size and content type without reading them. Socket.IO registers its own `/socket.io/*` routes
// on the same app, and the raw routes (media files, documents) are registered first.
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { AppContext } from '../src/context.js';
import type { CallerResolver } from '../src/auth/index.js';
import { AppError } from '../src/shared/errors.js';
import { IncomingBody, bodyTooLarge, hasBody } from './body.js';
import { CorsPolicy } from './cors.js';
import { Exchange, type ExchangeSettings } from './exchange.js';
import { InFlightRequests } from './in-flight.js';
import { removeTemporaryFiles } from './multipart.js';
import { pipelineFor, runPipeline } from './pipeline.js';
import type { RateLimits } from './rate-limit.js';
import type { AnyRoute } from './route.js';
import { Router } from './router.js';
import type { RequestState, Step } from './steps/request-state.js';

/**
 * Starts an exchange for a request on a raw route (same headers, log line and drain as the rest);
 * `routeLabel` is the raw route's pattern, the label its answers get in the metrics.
 */
export type OpenExchange = (res: HttpResponse, req: HttpRequest, routeLabel?: string) => Exchange;

export interface HttpServerDeps {
  /** The node's uWS app (the node may already listen on it: see service.ts). */
  uws: TemplatedApp;
  app: AppContext;
  callers: CallerResolver;
  rateLimits: RateLimits;
  routes: AnyRoute[];
  /** Registers routes that need uWS directly (media files, documents) before the catch-all. */
  registerRaw?: (uws: TemplatedApp, openExchange: OpenExchange) => void;
  /** Told about every finished answer (metrics). */
  onAnswered?: ExchangeSettings['onAnswered'];
}

export interface HttpServer {
  uws: TemplatedApp;
  router: Router<Step[]>;
  /** Number of requests being handled right now. */
  inFlight(): number;
  /** Resolves when no request is in flight (or the timeout passes). */
  drain(timeoutMs: number): Promise<void>;
}

export function createHttpServer(deps: HttpServerDeps): HttpServer {
  const { app, callers, rateLimits } = deps;
  const { config } = app;
  const { uws } = deps;
  const inFlight = new InFlightRequests();
  const cors = new CorsPolicy(config.CORS_ORIGINS);
  const settings: ExchangeSettings = { cors, inFlight, log: app.log, trustProxy: config.TRUST_PROXY, onAnswered: deps.onAnswered };
  const openExchange: OpenExchange = (res, req, routeLabel) => {
    const exchange = new Exchange(res, req, settings);
    if (routeLabel) exchange.routeLabel = routeLabel;
    return exchange;
  };
  const pipelineDeps = { callers, rateLimits, tmpDir: config.tmpDir };
  // Every route's pipeline is composed once, here; a match carries its route's.
  const router = new Router(deps.routes, (route) => pipelineFor(route, pipelineDeps));

  deps.registerRaw?.(uws, openExchange);

  uws.any('/*', (res: HttpResponse, req: HttpRequest) => {
    const exchange = openExchange(res, req);
    const { method, headers } = exchange;

    if (method === 'OPTIONS') {
      exchange.send(204, exchange.preflightHeaders(), null);
      return;
    }

    const declaredLength = headers['content-length'] !== undefined ? Number(headers['content-length']) || 0 : null;
    // A request refused before its body is read: the answer goes out at once and the rest of the
    // body is dropped (see IncomingBody.dropRest).
    const refuseUnread = (error: AppError) => {
      if (!hasBody(headers)) {
        exchange.sendError(error);
        return;
      }
      const unread = new IncomingBody(res, Number.MAX_SAFE_INTEGER, false, declaredLength);
      void unread.dropRest().then(({ close }) => exchange.sendError(error, {}, close));
    };

    const matched = router.match(method, exchange.url);
    if (matched.kind !== 'found') {
      refuseUnread(
        matched.kind === 'bad_path'
          ? new AppError(400, 'request.error.invalid_path', 'Malformed path')
          : new AppError(404, 'route.error.not_found', `No route for ${method} ${exchange.url}`),
      );
      return;
    }
    const { route, prepared: pipeline, params } = matched.match;
    exchange.routeLabel = route.path;

    // Body limits and content type are checked before anything is read.
    let body: IncomingBody | null = null;
    if ((route.body !== undefined || route.multipart !== undefined) && hasBody(headers)) {
      const limit = route.multipart
        ? (route.multipart.maxTotalBytes ?? route.multipart.maxFileBytes * route.multipart.maxFiles + 1024 * 1024)
        : (route.maxBodyBytes ?? config.MAX_JSON_BODY_BYTES);
      if ((declaredLength ?? 0) > limit) {
        refuseUnread(bodyTooLarge(limit));
        return;
      }
      const contentType = (headers['content-type'] ?? '').toLowerCase();
      const wanted = route.multipart ? 'multipart/form-data' : 'application/json';
      if (!contentType.startsWith(wanted)) {
        refuseUnread(
          new AppError(415, 'request.error.unsupported_media_type', `Content-Type must be ${wanted}`, { field: 'content-type', constraint: wanted }),
        );
        return;
      }
      // Uploads stay paused until the caller is authenticated: nothing reaches the disk before.
      body = new IncomingBody(res, limit, route.multipart !== undefined, declaredLength);
    }

    const state: RequestState = {
      exchange,
      route,
      app,
      pathParams: params,
      body,
      caller: null,
      rateHeaders: {},
      json: undefined,
      files: [],
      fields: {},
      context: null,
      result: null,
    };
    exchange.onAbort(() => {
      body?.abort();
      removeTemporaryFiles(state.files);
    });
    void runPipeline(pipeline, state)
      .catch(async (error: unknown) => {
        // A body not read to its end (an upload refused before reading, a body over its limit) is
        // read and dropped first, within bounds, so the client still reads this answer.
        const { close } = body ? await body.dropRest() : { close: false };
        exchange.sendError(error, state.rateHeaders, close);
      })
      .finally(() => removeTemporaryFiles(state.files));
  });

  return {
    uws,
    router,
    inFlight: () => inFlight.size,
    drain: (timeoutMs) => inFlight.drain(timeoutMs),
  };
}
