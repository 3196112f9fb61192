// Socket actions count against the caller's `general` limit, the same counter REST requests use,
// so sockets are no way around the limits of SPEC §8 (429 `rate_limit.error.exceeded` in the ack).
import type { RateLimitCounter } from '../../src/shared/rate-limits.js';

export type SocketRateLimit = (userId: string) => Promise<void>;

export function socketRateLimit(rateLimits: RateLimitCounter | null): SocketRateLimit {
  if (!rateLimits) return async () => undefined;
  return async (userId) => {
    await rateLimits.consume([{ name: 'general', key: `u:${userId}` }], 'socket');
  };
}
