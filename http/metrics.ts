// REST metrics of a node: every answer counted by method, route template and status, its latency,
// and rate-limit refusals (REST and socket events share the limiters). Route labels are the
// declared path templates (`/api/v1/content/:id`), the raw routes' patterns, or `(unmatched)`, so
// the number of series stays bounded whatever URLs clients send.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { AnswerRecord } from './exchange.js';
import type { RateLimitDoor, RateLimitName } from './rate-limit.js';
import { LATENCY_BUCKETS } from '../metrics.js';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface HttpMetrics {
  onAnswered: (answer: AnswerRecord) => void;
  onRateLimitRefused: (limit: RateLimitName, door: RateLimitDoor) => void;
}

export function httpMetrics(registry: Registry): HttpMetrics {
  const registers = [registry];
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP answers by method, route template and status',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request to the end of its answer, by method and route template',
    labelNames: ['method', 'route'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const refusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Actions refused by a rate limit (429), by limit and door (http or socket)',
    labelNames: ['limit', 'door'],
    registers,
  });
  return {
    onAnswered: ({ method, route, status, seconds }) => {
      // uWS hands over any method token a client sends: unknown ones share one label.
      const m = KNOWN_METHODS.has(method) ? method : 'OTHER';
      requests.inc({ method: m, route, status: String(status) });
      duration.observe({ method: m, route }, seconds);
    },
    onRateLimitRefused: (limit, door) => refusals.inc({ limit, door }),
  };
}
