// privacy.session_timeout, exactly (CONTRACT §17): a session idle for its timeout ends on the next
// request, on whichever node it comes to, within a second or so — without a database write per
// request. The freshest activity is the latest of: this node's memory, the other nodes' (Redis, in
// server mode: session-activity.ts) and the database's last_seen_at, which is written at most once
// per TOUCH_EVERY and so may lag by that much. The memory answers most checks at once; Redis and the
// database are asked only when this node's own view says the session may be idle.
import type { SessionActivityStore } from './session-activity.js';

export class IdleTimeout {
  constructor(
    private readonly activity: SessionActivityStore,
    /** Seconds in one minute of the setting: 60, except in tests (SESSION_TIMEOUT_MINUTE_SECONDS). */
    private readonly minuteSeconds: number,
  ) {}

  /** The setting's length (minutes) in milliseconds. */
  timeoutMs(timeoutMinutes: number): number {
    return timeoutMinutes * this.minuteSeconds * 1000;
  }

  /**
   * TOUCH_EVERY: how often a live session's last_seen_at is written at most (a minute, or a quarter
   * of a shorter timeout), in seconds. The durable record lags the true activity by at most this.
   * Real seconds even when a test shortens the minute, so a test sees the database lag as it is.
   */
  touchEverySeconds(timeoutMinutes: number): number {
    return Math.min(60, timeoutMinutes * 15);
  }

  /** Whether this node alone has seen the session active within its timeout (no I/O). */
  activeHere(sessionId: string, timeoutMinutes: number, now: number): boolean {
    const local = this.activity.local(sessionId);
    return local !== undefined && now - local <= this.timeoutMs(timeoutMinutes);
  }

  /**
   * Whether the session has been idle past its timeout at `now`, given the database's view
   * (`storedIdleSeconds`: seconds since last_seen_at by the database's clock). Asks the other
   * nodes only when neither the database nor this node shows a recent activity.
   */
  async expired(sessionId: string, storedIdleSeconds: number, timeoutMinutes: number, now: number): Promise<boolean> {
    const limit = this.timeoutMs(timeoutMinutes);
    if (storedIdleSeconds * 1000 <= limit || this.activeHere(sessionId, timeoutMinutes, now)) return false;
    const shared = await this.activity.latest(sessionId);
    return shared === undefined || now - shared > limit;
  }

  /** Records a request on the session at `now`. */
  seen(sessionId: string, now: number): void {
    this.activity.record(sessionId, now);
  }
}
