// Sessions: one per login. Ending one (logout, revocation, idle timeout, a reused refresh token)
// stamps revoked_at through the one revocation path (revocations.ts), so every node refuses it from
// the next request on and its sockets are dropped too. Refresh tokens rotate: each refresh hands
// out the session's next token, and the one presented is then used up (CONTRACT §19).
import { timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context.js';
import { notFound } from '../shared/errors.js';
import { newId, sha256 } from '../shared/ids.js';
import type { SessionRepository } from './session-repository.js';
import type { TokenService } from './tokens.js';
import type { EndedSession, Revocations } from './revocations.js';
import type { Queryable } from '../db/client.js';
import type { IdleTimeout } from './idle-timeout.js';

interface SessionView {
  session_id: string;
  user_agent: string;
  ip: string;
  created_at: string;
  last_seen_at: string;
  current: boolean;
}

/** Sessions ended per statement by the idle sweep. */
const IDLE_SWEEP_BATCH = 500;

/** What a refresh came to: the session's next refresh token, a used token (the session ended), or nothing valid. */
export type RefreshOutcome = { outcome: 'rotated'; userId: string; username: string; refreshToken: string } | { outcome: 'reused' } | { outcome: 'invalid' };

const sameHash = (a: string, b: string): boolean => {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * The `login.new_device` alert (src/notifications/login-alerts.ts): auth opens the session and
 * says a device is new; whether the user wants to hear of it and how is the notifications' affair.
 */
export interface NewDeviceAlerts {
  /** Stores the alert in `tx` when the user wants it (privacy.login_notifications); whether it did. */
  store(tx: Queryable, alert: { userId: string; sessionId: string; userAgent: string; ip: string }): Promise<boolean>;
  /** Sends what store() stored, once its transaction committed. */
  deliverSoon(): void;
}

const endedOf = (userId: string, sessionIds: string[]): EndedSession[] => sessionIds.map((sessionId) => ({ userId, sessionId }));

export class SessionService {
  constructor(
    private readonly app: AppContext,
    private readonly sessions: SessionRepository,
    private readonly tokens: TokenService,
    private readonly revocations: Revocations,
    private readonly newDeviceAlerts: NewDeviceAlerts,
    /** privacy.session_timeout, checked with the freshest activity of every node. */
    readonly idleTimeout: IdleTimeout,
  ) {}

  /**
   * Opens a session. `newDevice` is true when the user signed in before but never from this
   * user agent and wants to hear of it (privacy.login_notifications): the `login.new_device`
   * notification is stored with the session; the caller sends the SMS.
   */
  async open(userId: string, userAgent: string, ip: string): Promise<{ sessionId: string; refreshToken: string; newDevice: boolean }> {
    const sessionId = newId();
    const refreshToken = this.tokens.refreshToken(sessionId, 1);
    const agent = userAgent.slice(0, 512);
    const newDevice = await this.app.database.transaction(async (tx) => {
      const sessions = this.sessions.in(tx);
      const history = await sessions.userAgentHistory(userId, agent);
      await sessions.insert({
        id: sessionId,
        userId,
        refreshTokenHash: sha256(refreshToken),
        refreshGeneration: 1,
        userAgent: agent,
        ip,
        refreshTtlSeconds: this.app.config.REFRESH_TOKEN_TTL,
      });
      // The very first login is not a new device: there is no earlier one to compare with.
      if (!history.any || history.seen) return false;
      return this.newDeviceAlerts.store(tx, { userId, sessionId, userAgent: agent, ip });
    });
    if (newDevice) this.newDeviceAlerts.deliverSoon();
    return { sessionId, refreshToken, newDevice };
  }

  /**
   * POST /refresh-token: the session's next refresh token for its current one, which is used up
   * from then on. A token of the session that was already used ends the session (someone else may
   * hold it: CONTRACT §19). Two refreshes of one session take turns (the row is locked), so the
   * second to come with the same token finds it used.
   */
  async rotateRefreshToken(sessionId: string, username: string, refreshToken: string): Promise<RefreshOutcome> {
    type Verdict = RefreshOutcome | { outcome: 'used'; userId: string } | { outcome: 'idle'; userId: string };
    const verdict = await this.app.database.transaction(async (tx): Promise<Verdict> => {
      const sessions = this.sessions.in(tx);
      const row = await sessions.lockRefreshable(sessionId, username);
      if (!row) return { outcome: 'invalid' };
      const now = Date.now();
      if (await this.idleTimeout.expired(sessionId, row.idle_seconds, row.timeout_minutes, now)) return { outcome: 'idle', userId: row.user_id };
      if (sameHash(row.refresh_token_hash, sha256(refreshToken))) {
        this.idleTimeout.seen(sessionId, now);
        const generation = row.refresh_generation + 1;
        const next = this.tokens.refreshToken(sessionId, generation);
        await sessions.rotateRefreshToken(sessionId, sha256(next), generation);
        return { outcome: 'rotated', userId: row.user_id, username: row.username, refreshToken: next };
      }
      const generation = this.tokens.refreshTokenGeneration(sessionId, refreshToken);
      return generation !== null && generation < row.refresh_generation ? { outcome: 'used', userId: row.user_id } : { outcome: 'invalid' };
    });
    if (verdict.outcome === 'idle') {
      // Idle past privacy.session_timeout: it ends now, as a request on it would end it.
      await this.endIdle(verdict.userId, sessionId);
      return { outcome: 'invalid' };
    }
    if (verdict.outcome !== 'used') return verdict;
    await this.revoke(verdict.userId, sessionId);
    return { outcome: 'reused' };
  }

  async list(userId: string, currentSessionId: string): Promise<SessionView[]> {
    const rows = await this.sessions.listLive(userId);
    return rows.map((r) => ({
      session_id: r.id,
      user_agent: r.user_agent,
      ip: r.ip,
      created_at: r.created_at.toISOString(),
      last_seen_at: r.last_seen_at.toISOString(),
      current: r.id === currentSessionId,
    }));
  }

  /** Ends one of the user's sessions; false when no such live session. */
  async revoke(userId: string, sessionId: string): Promise<boolean> {
    const { sessions } = await this.revocations.revoke(async (tx) => ({ sessions: endedOf(userId, await this.sessions.in(tx).revoke(userId, sessionId)) }), {
      retry: true,
    });
    return sessions.length > 0;
  }

  /** DELETE /user/sessions/:id: ends one of the caller's sessions; 404 when it has no such live session. */
  async endOwn(userId: string, sessionId: string, currentSessionId: string): Promise<{ session_id: string; current: boolean }> {
    if (!(await this.revoke(userId, sessionId))) {
      throw notFound('session.error.not_found', 'No such active session', { field: 'session_id', constraint: 'an active session of the caller' });
    }
    return { session_id: sessionId, current: sessionId === currentSessionId };
  }

  /**
   * Ends every live session of the user except `keepSessionId` (all when null); returns how many.
   * Not retried when the database does not answer: a later run would also end sessions opened since.
   */
  async revokeAllExcept(userId: string, keepSessionId: string | null): Promise<number> {
    const { sessions } = await this.revocations.revoke(async (tx) => ({
      sessions: endedOf(userId, await this.sessions.in(tx).revokeAllExcept(userId, keepSessionId)),
    }));
    return sessions.length;
  }

  /** Ends a session a request found idle past its user's privacy.session_timeout. */
  async endIdle(userId: string, sessionId: string): Promise<void> {
    await this.revocations.revoke(async (tx) => ({ sessions: endedOf(userId, await this.sessions.in(tx).endIdle(userId, sessionId)) }), { retry: true });
  }

  /**
   * Ends sessions idle past their user's privacy.session_timeout (a scheduled job; a request on
   * such a session ends it at once too). Their sockets are dropped through `session.revoked`.
   */
  async expireIdle(): Promise<number> {
    let total = 0;
    for (;;) {
      const { sessions } = await this.revocations.revoke(async (tx) => ({
        sessions: (await this.sessions.in(tx).revokeIdle(IDLE_SWEEP_BATCH, this.app.config.SESSION_TIMEOUT_MINUTE_SECONDS)).map((s) => ({
          userId: s.user_id,
          sessionId: s.id,
        })),
      }));
      total += sessions.length;
      if (sessions.length < IDLE_SWEEP_BATCH) return total;
    }
  }
}
