// Sessions: one per login. Ending one (logout, revocation) stamps revoked_at, which every node
// checks on every request, and publishes `session.revoked` so live sockets are dropped too.
import { timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context.js';
import { notFound } from '../shared/errors.js';
import { newId, sha256 } from '../shared/ids.js';
import type { SessionRepository } from './session-repository.js';
import type { SettingsRepository } from '../settings/settings-repository.js';
import { newRefreshToken } from './tokens.js';
import type { NotificationService } from '../notifications/service.js';
import { wantsLoginAlerts } from '../notifications/preferences.js';

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

export class SessionService {
  constructor(
    private readonly app: AppContext,
    private readonly sessions: SessionRepository,
    private readonly settings: SettingsRepository,
    private readonly notifications: NotificationService,
  ) {}

  /**
   * Opens a session. `newDevice` is true when the user signed in before but never from this
   * user agent and wants to hear of it (privacy.login_notifications): the `login.new_device`
   * notification is stored with the session; the caller sends the SMS.
   */
  async open(userId: string, userAgent: string, ip: string): Promise<{ sessionId: string; refreshToken: string; newDevice: boolean }> {
    const sessionId = newId();
    const refreshToken = newRefreshToken();
    const agent = userAgent.slice(0, 512);
    const newDevice = await this.app.database.transaction(async (tx) => {
      const sessions = this.sessions.in(tx);
      const history = await sessions.userAgentHistory(userId, agent);
      await sessions.insert({
        id: sessionId,
        userId,
        refreshTokenHash: sha256(refreshToken),
        userAgent: agent,
        ip,
        refreshTtlSeconds: this.app.config.REFRESH_TOKEN_TTL,
      });
      // The very first login is not a new device: there is no earlier one to compare with.
      if (!history.any || history.seen || !(await wantsLoginAlerts(this.settings.in(tx), userId))) return false;
      await this.notifications.notify(tx, {
        userId,
        type: 'login.new_device',
        actorId: null,
        subject: { type: 'session', id: sessionId },
        data: { user_agent: agent, ip },
      });
      return true;
    });
    if (newDevice) this.notifications.deliverSoon();
    return { sessionId, refreshToken, newDevice };
  }

  /** The live session matching id, username and refresh token, or null. */
  async findForRefresh(sessionId: string, username: string, refreshToken: string): Promise<{ userId: string; username: string } | null> {
    const row = await this.sessions.findRefreshable(sessionId, username);
    if (!row) return null;
    const expected = Buffer.from(row.refresh_token_hash, 'hex');
    const given = Buffer.from(sha256(refreshToken), 'hex');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    await this.sessions.touch(sessionId);
    return { userId: row.user_id, username: row.username };
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
    const revoked = await this.sessions.revoke(userId, sessionId);
    await this.announceRevoked(userId, revoked);
    return revoked.length > 0;
  }

  /** DELETE /user/sessions/:id: ends one of the caller's sessions; 404 when it has no such live session. */
  async endOwn(userId: string, sessionId: string, currentSessionId: string): Promise<{ session_id: string; current: boolean }> {
    if (!(await this.revoke(userId, sessionId))) {
      throw notFound('session.error.not_found', 'No such active session', { field: 'session_id', constraint: 'an active session of the caller' });
    }
    return { session_id: sessionId, current: sessionId === currentSessionId };
  }

  /** Ends every live session of the user except `keepSessionId` (all when null); returns how many. */
  async revokeAllExcept(userId: string, keepSessionId: string | null): Promise<number> {
    const revoked = await this.sessions.revokeAllExcept(userId, keepSessionId);
    await this.announceRevoked(userId, revoked);
    return revoked.length;
  }

  /**
   * Ends sessions idle past their user's privacy.session_timeout (a scheduled job; a request on
   * such a session ends it at once too). Their sockets are dropped through `session.revoked`.
   */
  async expireIdle(): Promise<number> {
    let total = 0;
    for (;;) {
      const ended = await this.sessions.revokeIdle(IDLE_SWEEP_BATCH);
      for (const s of ended) await this.announceRevoked(s.user_id, [s.id]);
      total += ended.length;
      if (ended.length < IDLE_SWEEP_BATCH) return total;
    }
  }

  /** Resolves once every node has been told (their cached sessions go: src/read-model/). */
  private async announceRevoked(userId: string, sessionIds: string[]): Promise<void> {
    await Promise.all(sessionIds.map((sessionId) => this.app.events.publishAndWait('session.revoked', { userId, sessionId })));
  }
}
