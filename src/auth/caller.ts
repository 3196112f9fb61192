// Who is calling: resolved from a bearer access token plus a live-session check, in the read
// model's session cache or else the database, so a revoked session is refused from the next
// request on, on every node.
import { unauthorized } from '../shared/errors.js';
import type { Caller } from '../shared/caller.js';
import type { TokenService } from './tokens.js';
import type { SessionService } from './sessions.js';
import type { SessionRepository } from './session-repository.js';
import type { ReadCache } from '../read-model/index.js';
import type { CachedSession } from '../read-model/index.js';
import type { IdleTimeout } from './idle-timeout.js';

export { can, requirePermission, requireSameIdentity, type Caller } from '../shared/caller.js';

/** A session ended by privacy.session_timeout answers this from then on (not session_revoked). */
const sessionTimedOut = () => unauthorized('auth.error.session_timed_out', 'Session ended after being idle longer than its timeout');

/**
 * Longest a checked live session is trusted without asking the database again: a backstop only,
 * since a revocation on any node reaches the read model at once (src/auth/revocations.ts).
 */
const SESSION_FRESH_MS = 30_000;

/** The permissions a set of roles grants together (src/authorization/ keeps them). */
export interface PermissionsOfRoles {
  forRoles(roles: readonly string[]): Promise<ReadonlySet<string>>;
}

export class CallerResolver {
  constructor(
    private readonly sessions: SessionRepository,
    private readonly tokens: TokenService,
    private readonly rolePermissions: PermissionsOfRoles,
    /** Ends a session found idle, the way every revocation goes (revocations.ts). */
    private readonly sessionService: SessionService,
    /** Live sessions recently checked (read-model.ts), dropped when one is revoked on any node. */
    private readonly cache: ReadCache<string, CachedSession>,
    /** privacy.session_timeout with the freshest activity of every node (idle-timeout.ts). */
    private readonly idleTimeout: IdleTimeout,
  ) {}

  async resolve(accessToken: string): Promise<Caller> {
    const claims = await this.tokens.verifyAccessToken(accessToken);
    return this.live(claims.userId, claims.sessionId);
  }

  private async live(userId: string, sessionId: string): Promise<Caller> {
    const now = Date.now();
    const cached = this.cache.get(sessionId);
    // A cached live session is trusted while this node itself saw it active within its timeout.
    if (cached && cached.userId === userId && now < cached.freshUntil && this.idleTimeout.activeHere(sessionId, cached.timeoutMinutes, now)) {
      this.idleTimeout.seen(sessionId, now);
      return this.caller(userId, sessionId, cached.username, cached.role, cached.roles);
    }
    const epoch = this.cache.epoch();
    const row = await this.sessions.findForCaller(sessionId, userId);
    if (!row) throw unauthorized('auth.error.invalid_token', 'Session not found');
    if (row.revoked && row.ended_idle) throw sessionTimedOut();
    if (row.revoked) throw unauthorized('auth.error.session_revoked', 'Session has ended');
    if (await this.idleTimeout.expired(sessionId, row.idle_seconds, row.timeout_minutes, now)) {
      // privacy.session_timeout: ended here and now, on every node, and its sockets dropped.
      await this.sessionService.endIdle(userId, sessionId);
      throw sessionTimedOut();
    }
    this.idleTimeout.seen(sessionId, now);
    // last_seen_at, the durable record, is written at most once per TOUCH_EVERY.
    const touchEvery = this.idleTimeout.touchEverySeconds(row.timeout_minutes);
    const touchDue = row.idle_seconds > touchEvery;
    if (touchDue) {
      void this.sessions.touch(sessionId).catch(() => undefined);
    }
    // Trusted until its last_seen_at is due to be written again, so that write keeps its pace.
    const untilTouch = (touchDue ? touchEvery : touchEvery - row.idle_seconds) * 1000;
    this.cache.set(
      sessionId,
      {
        userId,
        username: row.username,
        role: row.role,
        roles: row.roles,
        timeoutMinutes: row.timeout_minutes,
        freshUntil: now + Math.min(SESSION_FRESH_MS, untilTouch),
      },
      epoch,
    );
    return this.caller(userId, sessionId, row.username, row.role, row.roles);
  }

  /**
   * The caller of a socket as it is now (the token was checked at the handshake): a role or
   * permission changed since then counts from the socket's next event. From the session cache
   * when it has it; a session that ended throws 401.
   */
  async refresh(caller: Caller): Promise<Caller> {
    return this.live(caller.userId, caller.sessionId);
  }

  private async caller(userId: string, sessionId: string, username: string, role: string, roles: readonly string[]): Promise<Caller> {
    // users.role is always among user_roles; should the set be empty, the primary role still counts.
    const held = roles.length ? roles : [role];
    return { userId, sessionId, username, role, roles: held, permissions: await this.rolePermissions.forRoles(held) };
  }
}
