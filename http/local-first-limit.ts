// The `general` limit (SPEC §8: 100 a minute per user or IP) counted where the request is, not
// with a Redis round trip per request: every request pays this limit, so it is counted in this
// node's memory and the counts are merged through Redis every FLUSH_MS (one pipelined INCRBY per
// key that moved). On one node it is exact; a client spreading requests over several nodes can
// exceed it by at most what the other nodes let through in one FLUSH_MS, before they merge.
// Windows are fixed and aligned to the clock (a minute starts on the minute).
// The narrower limits (login, OTP, payments...) stay counted in Redis on every request (rate-limit.ts).
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';

const FLUSH_MS = 100;
/** Clients counted at once on a node; the least recently seen are forgotten first. */
const MAX_KEYS = 200_000;

interface Window {
  /** Which window (Date.now() / duration, floored). */
  index: number;
  /** Requests known in this window, on every node, as of the last merge plus ours since. */
  total: number;
  /** Our requests not yet added to the shared count. */
  unsent: number;
}

export interface LimitCount {
  blocked: boolean;
  remaining: number;
  msBeforeNext: number;
}

export class LocalFirstLimit {
  private readonly windows = new LRUCache<string, Window>({ max: MAX_KEYS });
  private readonly moved = new Set<string>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly points: number,
    private readonly durationMs: number,
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    this.timer = setInterval(() => void this.merge(), FLUSH_MS);
    this.timer.unref();
  }

  consume(key: string): LimitCount {
    const now = Date.now();
    const index = Math.floor(now / this.durationMs);
    let window = this.windows.get(key);
    if (!window || window.index !== index) {
      window = { index, total: 0, unsent: 0 };
      this.windows.set(key, window);
    }
    window.total++;
    window.unsent++;
    this.moved.add(key);
    return {
      blocked: window.total > this.points,
      remaining: Math.max(0, this.points - window.total),
      msBeforeNext: (index + 1) * this.durationMs - now,
    };
  }

  /** Adds our counts to the shared ones and learns the other nodes' (one pipeline). */
  private async merge(): Promise<void> {
    if (this.moved.size === 0 || this.redis.status !== 'ready') return;
    const sent: { key: string; window: Window; count: number }[] = [];
    const pipeline = this.redis.pipeline();
    for (const key of this.moved) {
      const window = this.windows.get(key);
      if (!window || window.unsent === 0) continue;
      const shared = `${this.prefix}${key}:${window.index}`;
      pipeline.incrby(shared, window.unsent).pexpire(shared, this.durationMs * 2);
      sent.push({ key, window, count: window.unsent });
      window.unsent = 0;
    }
    this.moved.clear();
    if (sent.length === 0) return;
    try {
      const replies = (await pipeline.exec()) ?? [];
      sent.forEach(({ window }, i) => {
        const [err, shared] = replies[i * 2] ?? [];
        // Everyone's count as of the merge, plus what came here since.
        if (!err && typeof shared === 'number') window.total = Math.max(window.total, shared + window.unsent);
      });
    } catch {
      // Redis is away: this node goes on counting alone (as the other limits' fallback does).
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
