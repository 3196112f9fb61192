// Where the failed logins of each account are counted: in this node's memory with one node, in
// Redis when the nodes share one (server mode), so a guesser spreading tries over the nodes is
// counted once. Each account has a sliding window of tries (a sorted set in Redis, by time);
// taking a try and checking the window is one step (a Lua script), so concurrent tries never pass
// the limit together. When Redis does not answer, each node counts in its own memory meanwhile
// (as the address limits do: http/rate-limit.ts).
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../shared/logger.js';

export interface FailedLoginStore {
  /**
   * Adds try `id` to the account's window unless it already holds `limit` tries of the last
   * `windowMs`; answers 0 when added, else the milliseconds until a try leaves the window.
   */
  take(account: string, id: string, limit: number, windowMs: number): Promise<number>;
  /** Takes try `id` out again (it was not a failure). */
  forget(account: string, id: string): Promise<void>;
}

/** Accounts remembered at once; the least recently tried are forgotten first. */
const MAX_ACCOUNTS = 100_000;

export class MemoryFailedLoginStore implements FailedLoginStore {
  private readonly windows = new LRUCache<string, { id: string; at: number }[]>({ max: MAX_ACCOUNTS });

  async take(account: string, id: string, limit: number, windowMs: number): Promise<number> {
    const now = Date.now();
    const tries = (this.windows.get(account) ?? []).filter((t) => t.at > now - windowMs);
    if (tries.length >= limit) {
      this.windows.set(account, tries);
      return Math.max(1, tries[tries.length - limit].at + windowMs - now);
    }
    tries.push({ id, at: now });
    this.windows.set(account, tries, { ttl: windowMs });
    return 0;
  }

  async forget(account: string, id: string): Promise<void> {
    const tries = this.windows.get(account);
    if (tries)
      this.windows.set(
        account,
        tries.filter((t) => t.id !== id),
      );
  }
}

// KEYS: the account's window; ARGV: try id, limit, window (ms) → 0 when taken, else ms until a try leaves.
// Redis's clock, so every node agrees on the window.
const TAKE = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
  return math.max(1, tonumber(oldest[2]) + window - now)
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], window)
return 0`;

export class RedisFailedLoginStore implements FailedLoginStore {
  private readonly fallback = new MemoryFailedLoginStore();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly log: Logger,
  ) {}

  async take(account: string, id: string, limit: number, windowMs: number): Promise<number> {
    try {
      return Number(await this.redis.eval(TAKE, 1, this.key(account), id, limit, windowMs));
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'failed logins counted on this node alone: Redis did not answer');
      return this.fallback.take(account, id, limit, windowMs);
    }
  }

  async forget(account: string, id: string): Promise<void> {
    // Not waited for: the login need not wait on Redis for it (a second on a link that stopped
    // answering), and this node's next command on the connection runs after it anyway.
    void this.redis.zrem(this.key(account), id).catch(() => undefined);
    await this.fallback.forget(account, id);
  }

  private key(account: string): string {
    return `${this.prefix}failed-logins:${account}`;
  }
}

/** Redis when the service has one (several nodes), else memory. */
export function createFailedLoginStore(redis: Redis | null, prefix: string, log: Logger): FailedLoginStore {
  return redis ? new RedisFailedLoginStore(redis, prefix, log) : new MemoryFailedLoginStore();
}
