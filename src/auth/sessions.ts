// Sessions: one per login. Ending one (logout, revocation) stamps revoked_at, which every node
// checks on every request, and publishes `session.revoked` so live sockets are dropped too.
import { sql } from 'drizzle-orm';
import { timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context.js';
import { newId, sha256 } from '../shared/ids.js';
import { newRefreshToken } from './tokens.js';

export interface SessionView {
  session_id: string;
  user_agent: string;
  ip: string;
  created_at: string;
  last_seen_at: string;
  current: boolean;
}

export class SessionService {
  constructor(private readonly app: AppContext) {}

  async open(userId: string, userAgent: string, ip: string): Promise<{ sessionId: string; refreshToken: string }> {
    const sessionId = newId();
    const refreshToken = newRefreshToken();
    await this.app.database.rows(sql`
      insert into sessions (id, user_id, refresh_token_hash, user_agent, ip, refresh_expires_at)
      values (${sessionId}, ${userId}, ${sha256(refreshToken)}, ${userAgent.slice(0, 512)}, ${ip},
              now() + make_interval(secs => ${this.app.config.REFRESH_TOKEN_TTL}))`);
    return { sessionId, refreshToken };
  }

  /** The live session matching id, username and refresh token, or null. */
  async findForRefresh(sessionId: string, username: string, refreshToken: string): Promise<{ userId: string; username: string } | null> {
    const [row] = await this.app.database.rows<{ user_id: string; username: string; refresh_token_hash: string }>(sql`
      select s.user_id, u.username, s.refresh_token_hash
      from sessions s join users u on u.id = s.user_id
      where s.id = ${sessionId} and s.revoked_at is null and s.refresh_expires_at > now()
        and lower(u.username) = lower(${username})`);
    if (!row) return null;
    const expected = Buffer.from(row.refresh_token_hash, 'hex');
    const given = Buffer.from(sha256(refreshToken), 'hex');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    await this.app.database.rows(sql`update sessions set last_seen_at = now() where id = ${sessionId}`);
    return { userId: row.user_id, username: row.username };
  }

  async list(userId: string, currentSessionId: string): Promise<SessionView[]> {
    const rows = await this.app.database.rows<{ id: string; user_agent: string; ip: string; created_at: Date; last_seen_at: Date }>(sql`
      select id, user_agent, ip, created_at, last_seen_at from sessions
      where user_id = ${userId} and revoked_at is null and refresh_expires_at > now()
      order by last_seen_at desc`);
    return rows.map((r) => ({
      session_id: r.id,
      user_agent: r.user_agent,
      ip: r.ip,
      created_at: new Date(r.created_at).toISOString(),
      last_seen_at: new Date(r.last_seen_at).toISOString(),
      current: r.id === currentSessionId,
    }));
  }

  /** Ends one of the user's sessions; false when no such live session. */
  async revoke(userId: string, sessionId: string): Promise<boolean> {
    const rows = await this.app.database.rows<{ id: string }>(sql`
      update sessions set revoked_at = now()
      where id = ${sessionId} and user_id = ${userId} and revoked_at is null returning id`);
    for (const r of rows) this.app.events.publish('session.revoked', { userId, sessionId: r.id });
    return rows.length > 0;
  }

  /** Ends every live session of the user except `keepSessionId` (all when null); returns how many. */
  async revokeAllExcept(userId: string, keepSessionId: string | null): Promise<number> {
    const rows = await this.app.database.rows<{ id: string }>(sql`
      update sessions set revoked_at = now()
      where user_id = ${userId} and revoked_at is null
        and (${keepSessionId}::uuid is null or id <> ${keepSessionId}::uuid)
      returning id`);
    for (const r of rows) this.app.events.publish('session.revoked', { userId, sessionId: r.id });
    return rows.length;
  }
}
