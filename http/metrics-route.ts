// GET /metrics (CONTRACT §20): the node's metrics in Prometheus text format. With METRICS_TOKEN
// set it needs `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time); unset, it
// answers loopback clients only (403 to others), and a request relayed by a proxy (it carries
// X-Forwarded-For or Forwarded) does not count as loopback even when the proxy runs on this
// host. Never rate limited: a raw route, outside the pipeline that counts limits.
import { createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { AppError } from '../src/shared/errors.js';
import type { Exchange } from './exchange.js';
import type { OpenExchange } from './server.js';

export const METRICS_PATH = '/metrics';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

export function isLoopback(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  return loopback.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Equal tokens, in time that does not depend on where they differ (hashes have one length). */
export function tokenMatches(sent: string, expected: string): boolean {
  return timingSafeEqual(digest(sent), digest(expected));
}

/** Why this exchange may not read the metrics, or null when it may. */
export function metricsRefusal(exchange: Pick<Exchange, 'headers' | 'ip'>, token: string | undefined): AppError | null {
  if (token) {
    const match = /^Bearer\s+(\S{1,512})$/i.exec(exchange.headers.authorization ?? '');
    if (match && tokenMatches(match[1], token)) return null;
    return new AppError(401, 'metrics.error.unauthorized', 'A valid metrics token is required', undefined, { 'WWW-Authenticate': 'Bearer realm="metrics"' });
  }
  const relayed = exchange.headers['x-forwarded-for'] !== undefined || exchange.headers.forwarded !== undefined;
  if (!relayed && isLoopback(exchange.ip)) return null;
  return new AppError(403, 'metrics.error.forbidden', 'Metrics are served to loopback clients only unless METRICS_TOKEN is set');
}

export interface MetricsSource {
  contentType: string;
  render(): Promise<string>;
}

export function registerMetricsRoute(uws: TemplatedApp, token: string | undefined, source: MetricsSource, openExchange: OpenExchange): void {
  uws.get(METRICS_PATH, (res: HttpResponse, req: HttpRequest) => {
    const exchange = openExchange(res, req, METRICS_PATH);
    const refusal = metricsRefusal(exchange, token);
    if (refusal) {
      exchange.sendError(refusal);
      return;
    }
    source.render().then(
      (text) => exchange.send(200, { 'Content-Type': source.contentType, 'Cache-Control': 'no-store' }, text),
      (err: unknown) => exchange.sendError(err),
    );
  });
}
