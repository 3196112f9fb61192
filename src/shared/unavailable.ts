// A dependency that cannot be reached (the database, Redis) is an outage, not a bug: clients and
// load balancers retry a 503 with Retry-After, while a 500 reads as a defect of the request.
import { AppError } from './errors.js';

/** Seconds a client is asked to wait before it retries during an outage. */
const RETRY_AFTER_SECONDS = 5;

export const serviceUnavailable = () =>
  new AppError(503, 'service.error.unavailable', 'The service is temporarily unavailable; try again shortly', undefined, {
    'Retry-After': String(RETRY_AFTER_SECONDS),
  });

// Socket-level failures seen from node-postgres and ioredis.
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
// PostgreSQL SQLSTATEs of a server that is going away or not taking connections
// (class 08 is "connection exception").
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/, // node-postgres: the server went away mid-query or during connect
  /timeout exceeded when trying to connect/, // node-postgres pool: connectionTimeoutMillis passed
  /is not queryable/, // node-postgres: a client whose connection already failed
  /^Connection is closed/, // ioredis
  /enableOfflineQueue/, // ioredis: command refused while disconnected
  /Reached the max retries per request limit/, // ioredis
];

/** True when `error` (or an error it wraps in `cause`) says a dependency cannot be reached. */
export function isUnavailableError(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((re) => re.test(message))) return true;
  }
  return false;
}
