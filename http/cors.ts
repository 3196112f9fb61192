// CORS for every response of the service (REST, media, documents), from CORS_ORIGINS.
const EXPOSED_HEADERS =
  'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Idempotent-Replayed, Content-Range, Content-Length, ETag, Accept-Ranges';

const DEFAULT_ALLOWED_HEADERS =
  'Authorization, Content-Type, Idempotency-Key, X-Language, X-User-Id, X-User-Username, X-Session-Id, X-Request-Id, Range';

export class CorsPolicy {
  private readonly origins: string[];

  constructor(corsOrigins: string) {
    this.origins = corsOrigins.split(',').map((s) => s.trim()).filter(Boolean);
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
