// What the sponsored slot remembers of each viewer: the centre of the area they last browsed
// (CONTRACT §26) and how often each campaign was shown to them today (the frequency cap). A viewer
// is `u:<user id>` or `a:<client address>`. In this node's memory with one node (bounded, least
// recently used forgotten first); in Redis when nodes share one (server mode), so a viewer moving
// between nodes keeps both. Areas expire after AREA_TTL_SECONDS without browsing, cap counters
// with their UTC day. When Redis does not answer, nothing is remembered meanwhile: the viewer
// sees untargeted campaigns only and the cap counts in memory (never a 5xx for an advert).
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Point } from '../targeting/index.js';

/** A browsed area is forgotten after a day without browsing. */
export const AREA_TTL_SECONDS = 86_400;
/** Viewers remembered at once by one node in memory. */
const MAX_VIEWERS = 200_000;

export interface ViewerState {
  rememberArea(viewer: string, point: Point): void;
  lastArea(viewer: string): Promise<Point | null>;
  /**
   * Counts one showing of `campaignId` to `viewer` on UTC day `day` unless `cap` were passed;
   * answers whether it was counted.
   */
  takeShowing(viewer: string, campaignId: string, day: string, cap: number): Promise<boolean>;
  /** Undoes a counted showing (the impression could not be served after all). */
  returnShowing(viewer: string, campaignId: string, day: string): void;
}

export class MemoryViewerState implements ViewerState {
  private readonly areas = new LRUCache<string, Point>({ max: MAX_VIEWERS, ttl: AREA_TTL_SECONDS * 1000 });
  private readonly showings = new LRUCache<string, number>({ max: MAX_VIEWERS, ttl: AREA_TTL_SECONDS * 1000 });

  rememberArea(viewer: string, point: Point): void {
    this.areas.set(viewer, point);
  }

  async lastArea(viewer: string): Promise<Point | null> {
    return this.areas.get(viewer) ?? null;
  }

  async takeShowing(viewer: string, campaignId: string, day: string, cap: number): Promise<boolean> {
    const key = `${day}|${campaignId}|${viewer}`;
    const count = this.showings.get(key) ?? 0;
    if (count >= cap) return false;
    this.showings.set(key, count + 1);
    return true;
  }

  returnShowing(viewer: string, campaignId: string, day: string): void {
    const key = `${day}|${campaignId}|${viewer}`;
    const count = this.showings.get(key);
    if (count) this.showings.set(key, count - 1);
  }
}

// KEYS: the counter; ARGV: cap, ttl (s) → 1 when counted. Check and count in one step, so two
// nodes showing the campaign to the same viewer at once never pass the cap together.
const TAKE = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then return 0 end
redis.call('INCR', KEYS[1])
if n == 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 1`;

export class RedisViewerState implements ViewerState {
  private readonly fallback = new MemoryViewerState();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  rememberArea(viewer: string, point: Point): void {
    this.redis.set(`${this.prefix}area:${viewer}`, `${point.latitude},${point.longitude}`, 'EX', AREA_TTL_SECONDS).catch(() => undefined);
  }

  async lastArea(viewer: string): Promise<Point | null> {
    try {
      const text = await this.redis.get(`${this.prefix}area:${viewer}`);
      if (!text) return null;
      const [latitude, longitude] = text.split(',').map(Number);
      return Number.isFinite(latitude) && Number.isFinite(longitude) ? { latitude, longitude } : null;
    } catch {
      return null;
    }
  }

  async takeShowing(viewer: string, campaignId: string, day: string, cap: number): Promise<boolean> {
    try {
      const taken = await this.redis.eval(TAKE, 1, `${this.prefix}shown:${day}:${campaignId}:${viewer}`, cap, AREA_TTL_SECONDS + 3600);
      return taken === 1;
    } catch {
      return this.fallback.takeShowing(viewer, campaignId, day, cap);
    }
  }

  returnShowing(viewer: string, campaignId: string, day: string): void {
    this.redis.decr(`${this.prefix}shown:${day}:${campaignId}:${viewer}`).catch(() => undefined);
  }
}

export function createViewerState(redis: Redis | null, prefix: string): ViewerState {
  return redis ? new RedisViewerState(redis, prefix) : new MemoryViewerState();
}
