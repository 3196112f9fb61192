// The last activity of each session, kept fresh without a database write per request
// (privacy.session_timeout, CONTRACT §17). Every request on a session records "now" here: in this
// node's memory at once and, in server mode, in Redis (at most once a second per session and node),
// so the node that checks a session's idleness finds the freshest activity of every node. The
// database's `sessions.last_seen_at` is still written, coarsely (sessions.ts, TOUCH_EVERY), as the
// durable floor and for the idle sweep. Times are this process's clock in milliseconds; nodes'
// clocks are assumed to agree to well within a second (NTP), which the "within a few seconds" of
// the timeout leaves room for.
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../shared/logger.js';

export interface SessionActivityStore {
  /** This node's latest activity of the session (no I/O), if it has seen one. */
  local(sessionId: string): number | undefined;
  /** Records activity at `at` (ms). Never waits on I/O. */
  record(sessionId: string, at: number): void;
  /** The freshest activity any node recorded (ms), if known. */
  latest(sessionId: string): Promise<number | undefined>;
}

/** Sessions remembered per node; the least recently active are forgotten first (the database's last_seen_at remains). */
const MAX_SESSIONS = 200_000;
/** Longest privacy.session_timeout (30 days) plus a day: past it the value cannot matter. */
const KEEP_MS = 31 * 24 * 3600 * 1000;
/** How often one node writes one session's activity to Redis at most. */
const SHARE_EVERY_MS = 1_000;

export class MemorySessionActivity implements SessionActivityStore {
  private readonly seen = new LRUCache<string, number>({ max: MAX_SESSIONS });

  local(sessionId: string): number | undefined {
    return this.seen.get(sessionId);
  }

  record(sessionId: string, at: number): void {
    const before = this.seen.get(sessionId);
    if (before === undefined || before < at) this.seen.set(sessionId, at);
  }

  async latest(sessionId: string): Promise<number | undefined> {
    return this.seen.get(sessionId);
  }
}

// KEYS: the session's key; ARGV: time (ms), lifetime (ms). Keeps the larger of the stored and given times.
const RECORD = `
local before = redis.call('GET', KEYS[1])
if before and tonumber(before) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

export class RedisSessionActivity implements SessionActivityStore {
  private readonly memory = new MemorySessionActivity();
  /** When this node last wrote each session's activity to Redis. */
  private readonly shared = new LRUCache<string, number>({ max: MAX_SESSIONS });

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly log: Logger,
  ) {}

  local(sessionId: string): number | undefined {
    return this.memory.local(sessionId);
  }

  record(sessionId: string, at: number): void {
    this.memory.record(sessionId, at);
    const sharedAt = this.shared.get(sessionId);
    if (sharedAt !== undefined && at - sharedAt < SHARE_EVERY_MS) return;
    this.shared.set(sessionId, at);
    void this.redis.eval(RECORD, 1, this.key(sessionId), at, KEEP_MS).catch(() => undefined);
  }

  async latest(sessionId: string): Promise<number | undefined> {
    const here = this.memory.local(sessionId);
    try {
      const value = await this.redis.get(this.key(sessionId));
      const there = value === null ? undefined : Number(value);
      if (there === undefined || !Number.isFinite(there)) return here;
      return here === undefined ? there : Math.max(here, there);
    } catch (err) {
      // Without Redis this node knows its own requests and the database's last_seen_at.
      this.log.warn({ err: (err as Error).message }, "a session's idleness checked without the other nodes' activity: Redis did not answer");
      return here;
    }
  }

  private key(sessionId: string): string {
    return `${this.prefix}session-activity:${sessionId}`;
  }
}

/** Redis when the service has one (several nodes), else memory. */
export function createSessionActivity(redis: Redis | null, prefix: string, log: Logger): SessionActivityStore {
  return redis ? new RedisSessionActivity(redis, prefix, log) : new MemorySessionActivity();
}
