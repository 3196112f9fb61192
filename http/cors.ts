// CORS for every response of the service (REST, media, documents), from CORS_ORIGINS.
// The tus headers (resumable uploads, CONTRACT §24) are read by browser clients from answers and
// sent by them in requests, so they are exposed and allowed like the service's own.
const TUS_ANSWER_HEADERS = 'Location, Tus-Resumable, Tus-Version, Tus-Extension, Tus-Max-Size, Upload-Offset, Upload-Length, Upload-Metadata, Upload-Expires';
const TUS_REQUEST_HEADERS = 'Tus-Resumable, Upload-Length, Upload-Offset, Upload-Metadata';

const EXPOSED_HEADERS =
  'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Idempotent-Replayed, Content-Range, Content-Length, ETag, Accept-Ranges, ' +
  TUS_ANSWER_HEADERS;

const DEFAULT_ALLOWED_HEADERS =
  'Authorization, Content-Type, Idempotency-Key, X-Language, X-User-Id, X-User-Username, X-Session-Id, X-Request-Id, Range, ' + TUS_REQUEST_HEADERS;

export class CorsPolicy {
  private readonly origins: string[];

  constructor(corsOrigins: string) {
    this.origins = corsOrigins
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }

  /** The CORS headers of an answer to a request from `origin`. */
  headersFor(origin: string | undefined): Record<string, string> {
    if (this.origins.includes('*')) return { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': EXPOSED_HEADERS };
    if (origin && this.origins.includes(origin)) {
      return { 'Access-Control-Allow-Origin': origin, Vary: 'Origin', 'Access-Control-Expose-Headers': EXPOSED_HEADERS };
    }
    return {};
  }

  /** The extra headers of a preflight (OPTIONS) answer. */
  preflightHeaders(requestedHeaders: string | undefined): Record<string, string> {
    return {
      'Access-Control-Allow-Methods': 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
      'Access-Control-Allow-Headers': requestedHeaders || DEFAULT_ALLOWED_HEADERS,
      'Access-Control-Max-Age': '600',
    };
  }
}
