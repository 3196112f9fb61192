// One request and its answer, for every route of the service (the JSON route table, media files,
// the OpenAPI document): a snapshot of the uWS request (uWS reuses `req` after the handler
// returns), and the one response writer — status line, the headers every answer carries (request
// id, security headers, CORS), the error envelope, the access log line and the in-flight count
// that a stopping node drains.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import type { Logger } from '../src/shared/logger.js';
import type { AppError } from '../src/shared/errors.js';
import type { CorsPolicy } from './cors.js';
import { errorBody, toAppError } from './envelope.js';
import { failureLogLevel } from '../src/shared/error-mapping.js';
import { HSTS, overHttps } from '../src/shared/transport-security.js';
import type { InFlightRequests } from './in-flight.js';

const SECURITY_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
};

const JSON_TYPE = 'application/json; charset=utf-8';
const NO_HEADERS: Record<string, string> = Object.freeze({});

const statusLines = new Map<number, string>();
/** `200 OK`: made once per status (every answer writes one). */
function statusLine(status: number): string {
  let line = statusLines.get(status);
  if (line === undefined) statusLines.set(status, (line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`));
  return line;
}

/** One finished answer, as metrics see it. */
export interface AnswerRecord {
  method: string;
  /** The route's path template (`/api/v1/content/:id`), never the raw URL. */
  route: string;
  status: number;
  seconds: number;
}

/** The route label of an answer that no route or raw route claimed (404s, preflights of unknown paths). */
export const UNMATCHED_ROUTE = '(unmatched)';

/** What every exchange of a server shares. */
export interface ExchangeSettings {
  cors: CorsPolicy;
  inFlight: InFlightRequests;
  log: Logger;
  trustProxy: boolean;
  /** Told about every finished answer (metrics). */
  onAnswered?: (answer: AnswerRecord) => void;
}

/** The last non-empty entry of a comma-separated list, trimmed (null when there is none). */
function lastEntry(list: string): string | null {
  let end = list.length;
  while (end > 0) {
    const start = list.lastIndexOf(',', end - 1) + 1;
    const entry = list.slice(start, end).trim();
    if (entry) return entry;
    end = start - 1;
  }
  return null;
}

/** The caller's address: the socket peer, or with TRUST_PROXY the last X-Forwarded-For entry. */
function clientIp(res: HttpResponse, headers: Record<string, string>, trustProxy: boolean): string {
  const forwarded = trustProxy && headers['x-forwarded-for'] ? lastEntry(headers['x-forwarded-for']) : null;
  if (forwarded) return forwarded;
  const raw = Buffer.from(res.getRemoteAddressAsText()).toString();
  const mapped = /^(?:0{1,4}:){5}ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(raw);
  if (mapped) {
    const hi = parseInt(mapped[1], 16);
    const lo = parseInt(mapped[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return raw;
}

export class Exchange {
  readonly method: string;
  readonly url: string;
  readonly rawQuery: string;
  /** Lower-cased names. */
  readonly headers: Record<string, string>;
  readonly requestId: string;
  readonly ip: string;
  private readonly started = process.hrtime.bigint();
  private readonly baseHeaders: Record<string, string>;
  /** The path template of the route that answers; set once the route is known. */
  routeLabel: string = UNMATCHED_ROUTE;
  private abortHandlers: (() => void)[] = [];
  private answered = false;
  private finished = false;
  aborted = false;

  constructor(
    readonly res: HttpResponse,
    req: HttpRequest,
    private readonly settings: ExchangeSettings,
  ) {
    this.method = req.getMethod().toUpperCase();
    this.url = req.getUrl();
    this.rawQuery = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    req.forEach((k, v) => {
      headers[k] = v;
    });
    this.headers = headers;
    this.requestId = /^[\w-]{1,64}$/.test(headers['x-request-id'] ?? '') ? headers['x-request-id'] : randomUUID();
    this.ip = clientIp(res, headers, settings.trustProxy);
    // Object.assign rather than spreads: V8 makes an object spread with more fields after it the
    // slow (dictionary) way, and every answer has these headers (docs/performance.md).
    this.baseHeaders = Object.assign({ 'X-Request-Id': this.requestId }, SECURITY_HEADERS, settings.cors.headersFor(headers.origin));
    if (overHttps(headers, settings.trustProxy)) this.baseHeaders['Strict-Transport-Security'] = HSTS;
    settings.inFlight.enter();
    // The request stays in flight after its client left, until whoever handles it answers (a
    // no-op then) or ends its stream: a stopping node still waits for the work it started.
    res.onAborted(() => {
      this.aborted = true;
      for (const handler of this.abortHandlers) handler();
    });
  }

  /** The extra headers of the answer to a CORS preflight (OPTIONS) of this request. */
  preflightHeaders(): Record<string, string> {
    return this.settings.cors.preflightHeaders(this.headers['access-control-request-headers']);
  }

  /** Runs `handler` if the client leaves before the answer is complete. */
  onAbort(handler: () => void): void {
    this.abortHandlers.push(handler);
  }

  /** True once the answer was written or the client left: nothing more may be written. */
  get closed(): boolean {
    return this.aborted || this.answered;
  }

  /** Writes a whole answer; `body` null for none. Closes the connection after it when asked. */
  send(status: number, headers: Record<string, string>, body: string | Buffer | null, closeConnection = false): void {
    if (!this.closed) {
      this.answered = true;
      this.res.cork(() => {
        this.writeHead(status, headers);
        if (body === null) this.res.endWithoutBody(0, closeConnection);
        else this.res.end(body, closeConnection);
      });
    }
    this.finish(status);
  }

  sendJson(status: number, payload: unknown, headers: Record<string, string> = NO_HEADERS): void {
    this.sendJsonText(status, JSON.stringify(payload), headers);
  }

  /** A body that is JSON text already. */
  sendJsonText(status: number, json: string, headers: Record<string, string> = NO_HEADERS): void {
    if (!this.closed) {
      this.answered = true;
      this.res.cork(() => {
        this.writeHead(status, headers, JSON_TYPE);
        this.res.end(json);
      });
    }
    this.finish(status);
  }

  /** The error envelope of SPEC §7 for any thrown value (no internals reach the client). */
  sendError(error: unknown, headers: Record<string, string> = {}, closeConnection = false): void {
    const appError: AppError = toAppError(error);
    const level = failureLogLevel(appError);
    if (level === 'error') this.settings.log.error({ err: error, requestId: this.requestId, method: this.method, path: this.url }, 'request failed');
    // An expected state (a switched-off platform, an outage): its code, no stack.
    else if (level) this.settings.log[level]({ code: appError.code, requestId: this.requestId, method: this.method, path: this.url }, 'request refused');
    const body = this.method === 'HEAD' ? null : JSON.stringify(errorBody(appError));
    this.send(appError.status, { ...headers, ...(appError.headers ?? {}), 'Content-Type': JSON_TYPE }, body, closeConnection);
  }

  /**
   * For answers written in parts (streamed files): the status line and headers, inside the
   * caller's cork. The caller ends the response and then calls `streamEnded`.
   */
  writeHead(status: number, headers: Record<string, string>, contentType?: string): void {
    this.res.writeStatus(statusLine(status));
    // The headers every answer carries, then the answer's own (which win over them), without
    // building a merged object per answer.
    for (const k in this.baseHeaders) if (!Object.hasOwn(headers, k)) this.res.writeHeader(k, this.baseHeaders[k]);
    for (const k in headers) if (k !== 'Content-Type' || contentType === undefined) this.res.writeHeader(k, headers[k]);
    if (contentType !== undefined) this.res.writeHeader('Content-Type', contentType);
  }

  /** Marks an answer that the caller wrote itself (streamed) as begun, so nothing else writes. */
  beginStream(): void {
    this.answered = true;
  }

  /** A streamed answer is complete (or abandoned): log it and leave the in-flight count. */
  streamEnded(status: number): void {
    this.finish(status);
  }

  private finish(status: number): void {
    if (this.finished) return;
    this.finished = true;
    this.settings.inFlight.leave();
    const ms = Number(process.hrtime.bigint() - this.started) / 1e6;
    this.settings.onAnswered?.({ method: this.method, route: this.routeLabel, status, seconds: ms / 1000 });
    // The access log line, when the level keeps it (its fields are not even gathered otherwise).
    if (this.settings.log.isLevelEnabled('info'))
      this.settings.log.info({ requestId: this.requestId, method: this.method, path: this.url, status, ms: Math.round(ms * 10) / 10, ip: this.ip }, 'request');
  }
}
