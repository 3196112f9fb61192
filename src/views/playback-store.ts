// Where each playback's progress and each viewer's hourly view are remembered: in this node's
// memory with one node, in Redis when nodes share one (server mode), so a viewer whose reports
// reach two nodes is capped and counted as on one. In Redis one script does the whole step for a
// report (read the playback, cap, add, take the viewer's hour), so concurrent reports of a
// playback on two nodes never both count; ioredis pipelines the scripts of concurrent reports.
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../shared/logger.js';

/** What a report asks of the store. */
export interface PlaybackStep {
  /** The playback, scoped to its viewer and item (a client cannot move another's playback). */
  playbackKey: string;
  /** The viewer's view of the item in this hour: at most one counted view holds it. */
  hourKey: string;
  nowMs: number;
  watched: number;
  /** Seconds of watching that make a view (3 s or 30 % of the video, whichever is less). */
  threshold: number;
  /** Video length in seconds; 0 when unknown (then no retention is kept). */
  duration: number;
  /** The owner's own playbacks never count. */
  owner: boolean;
}

export interface PlaybackOutcome {
  /** The seconds this report adds, after the elapsed-time cap. */
  added: number;
  /** This report made the playback a view. */
  newlyCounted: boolean;
  /** The playback is a counted view (now or before). */
  counted: boolean;
  /** Tenths of the video the counted playback had reached before this report, and after it. */
  decileBefore: number;
  decileAfter: number;
}

export interface PlaybackStore {
  step(s: PlaybackStep): Promise<PlaybackOutcome>;
}

/** A playback nobody reports on for this long is forgotten (a report comes at least every 10 s). */
export const PLAYBACK_TTL_MS = 30 * 60_000;
/** Slack added to the elapsed time since the previous report (CONTRACT §26). */
export const CAP_SLACK_SECONDS = 2;
/** Keeps an hour's key a little past its hour, so clocks a few seconds apart still agree. */
const HOUR_KEY_TTL_S = 3_700;
const MAX_PLAYBACKS = 500_000;
const MAX_HOURS = 1_000_000;

/** counted: 0 not yet, 1 a view, 2 reached the threshold in an hour the viewer had already used. */
interface PlaybackState {
  at: number;
  watched: number;
  counted: 0 | 1 | 2;
  decile: number;
}

const decileOf = (watched: number, duration: number): number => (duration > 0 ? Math.min(10, Math.floor((10 * watched) / duration)) : 0);

export class MemoryPlaybackStore implements PlaybackStore {
  private readonly playbacks = new LRUCache<string, PlaybackState>({ max: MAX_PLAYBACKS, ttl: PLAYBACK_TTL_MS });
  private readonly hours = new LRUCache<string, true>({ max: MAX_HOURS, ttl: HOUR_KEY_TTL_S * 1000 });

  async step(s: PlaybackStep): Promise<PlaybackOutcome> {
    return this.stepNow(s);
  }

  stepNow(s: PlaybackStep): PlaybackOutcome {
    const state = this.playbacks.get(s.playbackKey) ?? { at: -1, watched: 0, counted: 0, decile: 0 };
    const cap = (state.at < 0 ? 0 : Math.max(0, (s.nowMs - state.at) / 1000)) + CAP_SLACK_SECONDS;
    const added = Math.min(s.watched, cap);
    const watched = state.watched + added;
    let newlyCounted = false;
    let counted = state.counted;
    if (counted === 0 && !s.owner && watched >= s.threshold) {
      if (this.hours.has(s.hourKey)) counted = 2;
      else {
        this.hours.set(s.hourKey, true);
        counted = 1;
        newlyCounted = true;
      }
    }
    const decileAfter = counted === 1 ? Math.max(state.decile, decileOf(watched, s.duration)) : 0;
    this.playbacks.set(s.playbackKey, { at: Math.max(state.at, s.nowMs), watched, counted, decile: decileAfter });
    return { added, newlyCounted, counted: counted === 1, decileBefore: counted === 1 ? state.decile : 0, decileAfter };
  }
}

// KEYS: playback hash, hour key. ARGV: now (ms), watched, threshold, duration, owner (0/1),
// playback ttl (ms), hour ttl (s), slack (s). The same step as MemoryPlaybackStore.stepNow.
const STEP = `
local st = redis.call('HMGET', KEYS[1], 'at', 'w', 'c', 'd')
local now = tonumber(ARGV[1])
local at = tonumber(st[1])
local w = tonumber(st[2]) or 0
local c = tonumber(st[3]) or 0
local d = tonumber(st[4]) or 0
local cap = tonumber(ARGV[8])
if at then cap = cap + math.max(0, (now - at) / 1000) end
local added = math.min(tonumber(ARGV[2]), cap)
w = w + added
local newly = 0
if c == 0 and ARGV[5] == '0' and w >= tonumber(ARGV[3]) then
  if redis.call('SET', KEYS[2], '1', 'NX', 'EX', tonumber(ARGV[7])) then c = 1; newly = 1 else c = 2 end
end
local before = 0
local after = 0
if c == 1 then
  before = d
  local duration = tonumber(ARGV[4])
  after = d
  if duration > 0 then after = math.max(d, math.min(10, math.floor(10 * w / duration))) end
end
local stamp = now
if at and at > now then stamp = at end
redis.call('HSET', KEYS[1], 'at', stamp, 'w', tostring(w), 'c', c, 'd', after)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[6]))
return {tostring(added), newly, c, before, after}`;

export class RedisPlaybackStore implements PlaybackStore {
  /** When Redis does not answer, reports are judged on this node alone meanwhile. */
  private readonly fallback = new MemoryPlaybackStore();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly log: Logger,
  ) {
    redis.defineCommand('viewStep', { numberOfKeys: 2, lua: STEP });
  }

  async step(s: PlaybackStep): Promise<PlaybackOutcome> {
    try {
      // The command defineCommand added above: ioredis types know nothing of it.
      const redis = this.redis as unknown as { viewStep(...args: (string | number)[]): Promise<[string, number, number, number, number]> };
      const [added, newly, counted, before, after] = await redis.viewStep(
        `${this.prefix}views:pb:${s.playbackKey}`,
        `${this.prefix}views:hour:${s.hourKey}`,
        s.nowMs,
        s.watched,
        s.threshold,
        s.duration,
        s.owner ? 1 : 0,
        PLAYBACK_TTL_MS,
        HOUR_KEY_TTL_S,
        CAP_SLACK_SECONDS,
      );
      return { added: Number(added), newlyCounted: newly === 1, counted: counted === 1, decileBefore: before, decileAfter: after };
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'playback judged on this node alone: Redis did not answer');
      return this.fallback.stepNow(s);
    }
  }
}

export const createPlaybackStore = (redis: Redis | null, prefix: string, log: Logger): PlaybackStore =>
  redis ? new RedisPlaybackStore(redis, prefix, log) : new MemoryPlaybackStore();
