// Who is calling: resolved from a bearer access token plus a live-session check in the database,
// so a revoked session is refused from the next request on, on every node.
import type { DatabaseHandle } from '../db/client.js';
import { unauthorized, forbidden } from '../shared/errors.js';
import type { RolePermissions } from '../authorization/role-permissions.js';
import type { TokenService } from './tokens.js';
import type { DomainEventBus } from '../events.js';
import { SessionRepository } from './session-repository.js';

export interface Caller {
  userId: string;
  sessionId: string;
  username: string;
  role: string;
  permissions: ReadonlySet<string>;
}

export const can = (caller: Caller, permission: string): boolean => caller.permissions.has(permission);

export function requirePermission(caller: Caller, permission: string): void {
  if (!can(caller, permission)) {
    throw forbidden('authorization.error.forbidden', `Permission ${permission} is required`);
  }
}

/** Identity headers (SPEC §5.6) must name the token's own user: someone else's id is 401. */
export function requireSameIdentity(caller: Caller, claimed: { userId: string; username?: string }): void {
  const sameUser = claimed.userId.toLowerCase() === caller.userId.toLowerCase();
  const sameName = claimed.username === undefined || claimed.username.toLowerCase() === caller.username.toLowerCase();
  if (!sameUser || !sameName) {
    throw unauthorized('auth.error.identity_mismatch', 'x-user-id and x-user-username must name the authenticated user');
  }
}

/**
 * How long a checked live session (and its user's role) is trusted without asking the database
 * again, in embedded mode: as long as role permissions are cached (RolePermissions).
 */
const SESSION_CACHE_MS = 5_000;

/** A session ended by privacy.session_timeout answers this from then on (not session_revoked). */
const sessionTimedOut = () => unauthorized('auth.error.session_timed_out', 'Session ended after being idle longer than its timeout');
const SESSION_CACHE_MAX = 50_000;

interface CachedSession {
  userId: string;
  username: string;
  role: string;
  checkedAt: number;
}

export class CallerResolver {
  /**
   * Live sessions recently checked. Only in embedded mode, where this process is the only node
   * (the DATA_DIR lock guarantees it) and every revocation passes through SessionService, which
   * publishes `session.revoked` on this process's bus: the entry is dropped at once, so a revoked
   * session is still refused from the next request on. With a database server other nodes may
   * revoke, so there every request asks the database.
   */
  private readonly sessionCache: Map<string, CachedSession> | null;
  private readonly sessions: SessionRepository;

  constructor(
    database: DatabaseHandle,
    private readonly tokens: TokenService,
    private readonly rolePermissions: RolePermissions,
    private readonly events: DomainEventBus,
  ) {
    this.sessions = new SessionRepository(database);
    this.sessionCache = database.mode === 'embedded' ? new Map() : null;
    if (this.sessionCache) {
      const cache = this.sessionCache;
      this.events.subscribe('session.revoked', ({ sessionId }) => cache.delete(sessionId));
    }
  }

  async resolve(accessToken: string): Promise<Caller> {
    const claims = await this.tokens.verifyAccessToken(accessToken);
    return this.live(claims.userId, claims.sessionId);
  }

  /**
   * The caller of a connection that continues without presenting its token again (a Socket.IO
   * connection recovered after a short drop): the same live-session check as `resolve`, and the
   * role's permissions as they are now.
   */
  resume(userId: string, sessionId: string): Promise<Caller> {
    return this.live(userId, sessionId);
  }

  private async live(userId: string, sessionId: string): Promise<Caller> {
    const cached = this.sessionCache?.get(sessionId);
    if (cached && cached.userId === userId && Date.now() - cached.checkedAt < SESSION_CACHE_MS) {
      return this.caller(userId, sessionId, cached.username, cached.role);
    }
    const row = await this.sessions.findForCaller(sessionId, userId);
    if (!row) throw unauthorized('auth.error.invalid_token', 'Session not found');
    if (row.revoked && row.ended_idle) throw sessionTimedOut();
    if (row.revoked) throw unauthorized('auth.error.session_revoked', 'Session has ended');
    if (row.idle_expired) {
      // privacy.session_timeout: ended here and now, and its sockets dropped on every node.
      if ((await this.sessions.endIdle(userId, sessionId)).length) this.events.publish('session.revoked', { userId, sessionId });
      throw sessionTimedOut();
    }
    if (row.touch_due) {
      void this.sessions.touch(sessionId).catch(() => undefined);
    }
    if (this.sessionCache) {
      if (this.sessionCache.size >= SESSION_CACHE_MAX) this.sessionCache.clear();
      this.sessionCache.set(sessionId, { userId, username: row.username, role: row.role, checkedAt: Date.now() });
    }
    return this.caller(userId, sessionId, row.username, row.role);
  }

  private async caller(userId: string, sessionId: string, username: string, role: string): Promise<Caller> {
    return { userId, sessionId, username, role, permissions: await this.rolePermissions.forRole(role) };
  }
}
