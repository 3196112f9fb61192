// Rate limits: `general` always, plus the route's own; per user when known, else per client
// address (an IPv6 client per /64: address-key.ts).
import { addressKey } from '../address-key.js';
import { rateLimitHeaders, type RateLimitName, type RateLimits } from '../rate-limit.js';
import type { Step } from './request-state.js';

export function limitRate(rateLimits: RateLimits): Step {
  return {
    name: 'limit-rate',
    run: async (state) => {
      const { route, caller } = state;
      const ipKey = `ip:${addressKey(state.exchange.ip)}`;
      const userKey = caller ? `u:${caller.userId}` : ipKey;
      const routeKey = route.rateLimitKey === 'ip' ? ipKey : userKey;
      const checks: { name: RateLimitName; key: string }[] = [{ name: 'general', key: userKey }];
      for (const name of route.rateLimits ?? []) checks.push({ name, key: routeKey });
      state.rateHeaders = rateLimitHeaders(await rateLimits.consume(checks));
    },
  };
}
