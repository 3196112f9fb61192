// The limits of SPEC §8, counted by rate-limiter-flexible: in memory on one node, in Redis when
// REDIS_URL is set (shared by every node; if Redis stops answering, each node falls back to its
// own in-memory counters so REST keeps working). RATE_LIMIT_SCALE multiplies every limit.
// `general`, which every request pays, is counted in memory first and merged between nodes
// through Redis in the background (local-first-limit.ts): no Redis round trip on a request.
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { tooManyRequests } from '../src/shared/errors.js';
import { LocalFirstLimit, type LimitCount } from './local-first-limit.js';

// The limits' names, states and the counter both doors use live in src/shared/rate-limits.ts.
import { RATE_LIMITS, type RateLimitCounter, type RateLimitDoor, type RateLimitName, type RateLimitState } from '../src/shared/rate-limits.js';
export { RATE_LIMITS, type RateLimitCounter, type RateLimitDoor, type RateLimitName, type RateLimitState };

/** One limit: how many points a window holds, and counting one request against a key. */
interface Limit {
  points: number;
  consume(key: string): Promise<LimitCount> | LimitCount;
}

/** A rate-limiter-flexible limiter as a Limit (a refusal is its rejection with the state). */
function flexibleLimit(limiter: RateLimiterAbstract): Limit {
  return {
    points: limiter.points,
    consume: async (key) => {
      try {
        const res = await limiter.consume(key, 1);
        return { blocked: false, remaining: res.remainingPoints, msBeforeNext: res.msBeforeNext };
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        return { blocked: true, remaining: rejection.remainingPoints, msBeforeNext: rejection.msBeforeNext };
      }
    },
  };
}

export class RateLimits implements RateLimitCounter {
  private readonly limiters = new Map<RateLimitName, Limit>();
  private readonly localFirst: LocalFirstLimit[] = [];
  /** Told about every refusal (metrics). */
  onRefused: ((limit: RateLimitName, door: RateLimitDoor) => void) | null = null;

  constructor(scale: number, redis: Redis | null, prefix: string) {
    for (const [name, def] of Object.entries(RATE_LIMITS) as [RateLimitName, (typeof RATE_LIMITS)[RateLimitName]][]) {
      const points = Math.max(1, Math.ceil(def.points * scale));
      const memory = new RateLimiterMemory({ points, duration: 60, keyPrefix: name });
      if (redis && name === 'general') {
        const limit = new LocalFirstLimit(points, 60_000, redis, `${prefix}rlw:${name}:`);
        this.localFirst.push(limit);
        this.limiters.set(name, limit);
        continue;
      }
      const limiter = redis
        ? new RateLimiterRedis({
            storeClient: redis,
            points,
            duration: 60,
            keyPrefix: `${prefix}rl:${name}`,
            insuranceLimiter: memory,
            rejectIfRedisNotReady: true,
          })
        : memory;
      this.limiters.set(name, flexibleLimit(limiter));
    }
  }

  /**
   * Counts one request against each named limit for its key. Returns the state of the tightest
   * limit for the X-RateLimit-* headers; throws 429 (with those headers) when any is exceeded.
   */
  async consume(checks: { name: RateLimitName; key: string }[], door: RateLimitDoor = 'http'): Promise<RateLimitState> {
    let tightest: RateLimitState | null = null;
    let exceeded: RateLimitState | null = null;
    for (const { name, key } of checks) {
      const limiter = this.limiters.get(name)!;
      const { blocked, remaining, msBeforeNext } = await limiter.consume(key);
      const state: RateLimitState = {
        limit: limiter.points,
        remaining: Math.max(0, remaining),
        reset: Math.ceil((Date.now() + msBeforeNext) / 1000),
      };
      if (blocked && !exceeded) {
        exceeded = state;
        this.onRefused?.(name, door);
      }
      if (!tightest || state.remaining < tightest.remaining) tightest = state;
    }
    if (exceeded) {
      throw tooManyRequests('rate_limit.error.exceeded', 'Too many requests, try again later', {
        ...rateLimitHeaders(exceeded),
        'Retry-After': String(Math.max(1, exceeded.reset - Math.floor(Date.now() / 1000))),
      });
    }
    return tightest!;
  }

  /** Stops the background merging (on shutdown). */
  close(): void {
    for (const limit of this.localFirst) limit.close();
  }
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(state.reset),
  };
}
