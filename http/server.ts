// The uWebSockets.js facade: one catch-all handler that matches the declared routes and runs each
// request through the same chain: CORS → route match → body limits and content type →
// authentication → rate limits → permission → zod validation → handler → envelope.
// Socket.IO registers its own `/socket.io/*` routes on the same app (uWS matches those first).
import uWS, { type HttpRequest, type HttpResponse, type TemplatedApp } from 'uWebSockets.js';
import { STATUS_CODES } from 'node:http';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../src/context.js';
import type { Caller } from '../src/auth/caller.js';
import { requirePermission, type CallerResolver } from '../src/auth/caller.js';
import { AppError, unauthorized } from '../src/shared/errors.js';
import { IncomingBody, bodyTooLarge } from './body.js';
import { errorBody, successBody, toAppError, validationError } from './envelope.js';
import { readMultipart, removeTemporaryFiles } from './multipart.js';
import { rateLimitHeaders, type RateLimitName, type RateLimits } from './rate-limit.js';
import type { AnyRoute, RequestContext, RouteResult, UploadedFile } from './route.js';
import { Router } from './router.js';

export interface HttpServerDeps {
  app: AppContext;
  callers: CallerResolver;
  rateLimits: RateLimits;
  routes: AnyRoute[];
  /** Registers routes that need uWS directly (media files) before the catch-all. */
  registerRaw?: (uws: TemplatedApp) => void;
}

export interface HttpServer {
  uws: TemplatedApp;
  router: Router;
  /** Number of requests being handled right now. */
  inFlight(): number;
  /** Resolves when no request is in flight (or the timeout passes). */
  drain(timeoutMs: number): Promise<void>;
}

interface ResponseState {
  aborted: boolean;
  done: boolean;
}

const statusLine = (status: number) => `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;

const SECURITY_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
};

const EXPOSED_HEADERS = 'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After';

/** The caller's address: the socket peer, or with TRUST_PROXY the last X-Forwarded-For entry. */
function clientIp(res: HttpResponse, headers: Record<string, string>, trustProxy: boolean): string {
  if (trustProxy && headers['x-forwarded-for']) {
    const hops = headers['x-forwarded-for'].split(',').map((s) => s.trim()).filter(Boolean);
    if (hops.length) return hops[hops.length - 1];
  }
  const raw = Buffer.from(res.getRemoteAddressAsText()).toString();
  const mapped = /^(?:0{1,4}:){5}ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(raw);
  if (mapped) {
    const hi = parseInt(mapped[1], 16);
    const lo = parseInt(mapped[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return raw;
}

export function createHttpServer(deps: HttpServerDeps): HttpServer {
  const { app, callers, rateLimits } = deps;
  const { config, log } = app;
  const router = new Router(deps.routes);
  const uws = uWS.App();
  let inFlight = 0;
  let drainWaiters: (() => void)[] = [];
  const allowedOrigins = config.CORS_ORIGINS.split(',').map((s) => s.trim()).filter(Boolean);

  const corsHeaders = (origin: string | undefined): Record<string, string> => {
    if (allowedOrigins.includes('*')) return { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': EXPOSED_HEADERS };
    if (origin && allowedOrigins.includes(origin)) {
      return { 'Access-Control-Allow-Origin': origin, Vary: 'Origin', 'Access-Control-Expose-Headers': EXPOSED_HEADERS };
    }
    return {};
  };

  const send = (
    res: HttpResponse,
    state: ResponseState,
    status: number,
    headers: Record<string, string>,
    body: string | null,
    closeConnection = false,
  ) => {
    if (state.aborted || state.done) return;
    state.done = true;
    res.cork(() => {
      res.writeStatus(statusLine(status));
      for (const [k, v] of Object.entries(headers)) res.writeHeader(k, v);
      if (body === null) res.endWithoutBody(0, closeConnection);
      else res.end(body, closeConnection);
    });
  };

  deps.registerRaw?.(uws);

  uws.any('/*', (res: HttpResponse, req: HttpRequest) => {
    // Everything from `req` must be read now: it is stack-allocated and gone after this call.
    const started = process.hrtime.bigint();
    const method = req.getMethod().toUpperCase();
    const url = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    req.forEach((k, v) => {
      headers[k] = v;
    });
    const requestId = /^[\w-]{1,64}$/.test(headers['x-request-id'] ?? '') ? headers['x-request-id'] : randomUUID();
    const state: ResponseState = { aborted: false, done: false };
    let uploaded: UploadedFile[] = [];
    const ip = clientIp(res, headers, config.TRUST_PROXY);
    let body: IncomingBody | null = null;
    res.onAborted(() => {
      state.aborted = true;
      body?.abort();
      removeTemporaryFiles(uploaded);
    });
    const baseHeaders: Record<string, string> = {
      'X-Request-Id': requestId,
      ...SECURITY_HEADERS,
      ...corsHeaders(headers.origin),
    };

    inFlight++;
    const finish = (status: number) => {
      inFlight--;
      if (inFlight === 0) {
        const waiters = drainWaiters;
        drainWaiters = [];
        waiters.forEach((w) => w());
      }
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info({ requestId, method, path: url, status, ms: Math.round(ms * 10) / 10, ip }, 'request');
    };

    const sendError = (error: unknown, extraHeaders: Record<string, string> = {}, closeConnection = false) => {
      const appError = toAppError(error);
      if (appError.status >= 500) log.error({ err: error, requestId, method, path: url }, 'request failed');
      send(
        res,
        state,
        appError.status,
        { ...baseHeaders, ...extraHeaders, ...(appError.headers ?? {}), 'Content-Type': 'application/json; charset=utf-8' },
        JSON.stringify(errorBody(appError)),
        closeConnection,
      );
      return appError.status;
    };

    if (method === 'OPTIONS') {
      send(res, state, 204, {
        ...baseHeaders,
        'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
        'Access-Control-Allow-Headers':
          headers['access-control-request-headers'] ||
          'Authorization, Content-Type, Idempotency-Key, X-Language, X-User-Id, X-User-Username, X-Session-Id, X-Request-Id',
        'Access-Control-Max-Age': '600',
      }, null);
      finish(204);
      return;
    }

    const declaredLength = headers['content-length'] !== undefined ? Number(headers['content-length']) || 0 : null;
    // A request refused before its body is read: the answer goes out at once and the rest of the
    // body is dropped (see IncomingBody.dropRest).
    const refuseUnread = (error: AppError) => {
      if (!hasBody(headers)) {
        finish(sendError(error));
        return;
      }
      body = new IncomingBody(res, Number.MAX_SAFE_INTEGER, false, declaredLength);
      void body.dropRest().then(({ close }) => finish(sendError(error, {}, close)));
    };

    const matched = router.match(method, url);
    if (matched.kind !== 'found') {
      const error =
        matched.kind === 'bad_path'
          ? new AppError(400, 'request.error.invalid_path', 'Malformed path')
          : new AppError(404, 'route.error.not_found', `No route for ${method} ${url}`);
      refuseUnread(error);
      return;
    }
    const { route, params } = matched.match;

    // Body limits and content type are checked before anything is read.
    const expectsBody = route.body !== undefined || route.multipart !== undefined;
    if (expectsBody && hasBody(headers)) {
      const limit = route.multipart
        ? route.multipart.maxTotalBytes ?? route.multipart.maxFileBytes * route.multipart.maxFiles + 1024 * 1024
        : route.maxBodyBytes ?? config.MAX_JSON_BODY_BYTES;
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
      body = new IncomingBody(res, limit, route.multipart !== undefined, declaredLength);
    }

    void (async () => {
      let caller: Caller | null = null;
      let rateHeaders: Record<string, string> = {};
      try {
        // Authentication.
        const authorization = headers.authorization ?? '';
        const bearer = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
        if (route.auth !== 'public') {
          if (bearer) caller = await callers.resolve(bearer);
          else if (route.auth === 'user') {
            throw unauthorized(authorization ? 'auth.error.invalid_token' : 'auth.error.missing_token', 'A bearer access token is required');
          }
        }

        // Rate limits: `general` always, plus the route's own; per user when known, else per IP.
        if (!route.skipRateLimit) {
          const userKey = caller ? `u:${caller.userId}` : `ip:${ip}`;
          const routeKey = route.rateLimitKey === 'ip' || !caller ? `ip:${ip}` : userKey;
          const checks: { name: RateLimitName; key: string }[] = [{ name: 'general', key: userKey }];
          for (const name of route.rateLimits ?? []) checks.push({ name, key: routeKey });
          rateHeaders = rateLimitHeaders(await rateLimits.consume(checks));
        }

        if (route.permission) {
          if (!caller) throw unauthorized('auth.error.missing_token', 'A bearer access token is required');
          requirePermission(caller, route.permission);
        }

        // Body.
        let parsedBody: unknown = undefined;
        let fields: Record<string, string> = {};
        if (route.multipart) {
          if (!body) throw new AppError(400, 'request.error.missing_body', 'A multipart/form-data body is required', { field: 'body', constraint: 'required' });
          const result = await readMultipart(body, headers, route.multipart, config.tmpDir);
          uploaded = result.files;
          fields = result.fields;
          if (state.aborted) removeTemporaryFiles(uploaded);
        } else if (body) {
          const raw = await body.readAll();
          if (raw.length) {
            try {
              parsedBody = JSON.parse(raw.toString('utf8'));
            } catch {
              throw new AppError(400, 'request.error.malformed_json', 'Request body is not valid JSON', { field: 'body', constraint: 'valid JSON' });
            }
          }
        }

        const parse = <T>(schema: z.ZodType<T> | undefined, value: unknown, part: string): T => {
          if (!schema) return value as T;
          const result = schema.safeParse(value);
          if (!result.success) throw validationError(part, result.error);
          return result.data;
        };
        const query = Object.fromEntries(new URLSearchParams(rawQuery));
        const resolvedCaller = caller;
        const ctx: RequestContext<unknown, unknown, unknown> = {
          body: parse(route.body, parsedBody, 'body'),
          query: parse(route.query, query, 'query'),
          params: parse(route.params, params, 'params'),
          headers,
          get caller(): Caller {
            if (!resolvedCaller) throw unauthorized('auth.error.missing_token', 'A bearer access token is required');
            return resolvedCaller;
          },
          optionalCaller: resolvedCaller,
          ip,
          requestId,
          files: uploaded,
          fields,
          app,
        };
        const result: RouteResult = await route.handler(ctx);
        const headersOut = { ...baseHeaders, ...rateHeaders, ...(result.headers ?? {}) };
        if ('empty' in result) {
          send(res, state, 204, headersOut, null);
          finish(204);
          return;
        }
        const status = result.status ?? route.successStatus ?? 200;
        const payload = 'raw' in result ? result.raw : successBody(result.data, result.message);
        send(res, state, status, { ...headersOut, 'Content-Type': 'application/json; charset=utf-8' }, JSON.stringify(payload));
        finish(status);
      } catch (error) {
        // A body not read to its end (an upload refused before reading, a body over its limit) is
        // read and dropped first, within bounds, so the client still reads this answer.
        const { close } = body && !body.isComplete() ? await body.dropRest() : { close: false };
        finish(sendError(error, rateHeaders, close));
      } finally {
        removeTemporaryFiles(uploaded);
      }
    })();
  });

  return {
    uws,
    router,
    inFlight: () => inFlight,
    drain: (timeoutMs) =>
      inFlight === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, timeoutMs);
            drainWaiters.push(() => {
              clearTimeout(timer);
              resolve();
            });
          }),
  };
}

function hasBody(headers: Record<string, string>): boolean {
  return (headers['content-length'] !== undefined && headers['content-length'] !== '0') || headers['transfer-encoding'] !== undefined;
}
