// The rate limits of SPEC §8 as both doors see them: their names and base points, the state a
// check answers, and the counter itself as an interface. REST (http/rate-limit.ts, which counts
// them with rate-limiter-flexible) and Socket.IO (realtime/transport/socket-rate-limit.ts, whose events pay
// the same `general` points) both use this module, so neither door imports the other.
/** Base limits per minute (SPEC §8). `general` applies to every route. */
export const RATE_LIMITS = {
  general: { points: 100, per: 'user or IP' },
  auth: { points: 5, per: 'IP' },
  content_create: { points: 10, per: 'user' },
  comments: { points: 30, per: 'user' },
  uploads: { points: 5, per: 'user' },
  two_factor: { points: 5, per: 'user' },
  payments: { points: 20, per: 'user' },
  blocks: { points: 30, per: 'user' },
} as const;

export type RateLimitName = keyof typeof RATE_LIMITS;

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
}

/** Where a counted action came from: a REST request or a socket event. */
export type RateLimitDoor = 'http' | 'socket';

/** Counts one action against each named limit for its key; throws 429 `rate_limit.error.exceeded` past one. */
export interface RateLimitCounter {
  consume(checks: { name: RateLimitName; key: string }[], door?: RateLimitDoor): Promise<RateLimitState>;
}
