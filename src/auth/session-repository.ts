// Queries on the `sessions` table (migration 0001). A session is live while revoked_at is null;
// its refresh token is usable until refresh_expires_at. Times are compared with the database's
// now(), so every node agrees on what has expired.
import { sql } from 'drizzle-orm';
import type { Queryable } from '../db/client.js';

interface NewSession {
  id: string;
  userId: string;
  refreshTokenHash: string;
  userAgent: string;
  ip: string;
  refreshTtlSeconds: number;
}

interface RefreshableSessionRow {
  user_id: string;
  username: string;
  refresh_token_hash: string;
}

interface LiveSessionRow {
  id: string;
  user_agent: string;
  ip: string;
  created_at: Date;
  last_seen_at: Date;
}

/** What a request's caller check needs: the session's state and its user's name and role. */
interface CallerSessionRow {
  role: string;
  username: string;
  revoked: boolean;
  last_seen_ms: number;
}

export class SessionRepository {
  constructor(private readonly db: Queryable) {}

  async insert(session: NewSession): Promise<void> {
    await this.db.rows(sql`
      insert into sessions (id, user_id, refresh_token_hash, user_agent, ip, refresh_expires_at)
      values (${session.id}, ${session.userId}, ${session.refreshTokenHash}, ${session.userAgent}, ${session.ip},
              now() + make_interval(secs => ${session.refreshTtlSeconds}))`);
  }

  /** The live, unexpired session `id` if its user is `username` (any case). */
  async findRefreshable(id: string, username: string): Promise<RefreshableSessionRow | undefined> {
    const [row] = await this.db.rows<RefreshableSessionRow>(sql`
      select s.user_id, u.username, s.refresh_token_hash
      from sessions s join users u on u.id = s.user_id
      where s.id = ${id} and s.revoked_at is null and s.refresh_expires_at > now()
        and lower(u.username) = lower(${username})`);
    return row;
  }

  async findForCaller(id: string, userId: string): Promise<CallerSessionRow | undefined> {
    const [row] = await this.db.rows<CallerSessionRow>(sql`
      select u.role, u.username, (s.revoked_at is not null) as revoked,
             (extract(epoch from now() - s.last_seen_at) * 1000)::float8 as last_seen_ms
      from sessions s join users u on u.id = s.user_id
      where s.id = ${id} and s.user_id = ${userId}`);
    return row;
  }

  /** The user's live, unexpired sessions, most recently seen first. */
  async listLive(userId: string): Promise<LiveSessionRow[]> {
    return this.db.rows<LiveSessionRow>(sql`
      select id, user_agent, ip, created_at, last_seen_at from sessions
      where user_id = ${userId} and revoked_at is null and refresh_expires_at > now()
      order by last_seen_at desc`);
  }

  async touch(id: string): Promise<void> {
    await this.db.rows(sql`update sessions set last_seen_at = now() where id = ${id}`);
  }

  /** Revokes the user's live session `id`; answers the ids revoked (none or it). */
  async revoke(userId: string, id: string): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(sql`
      update sessions set revoked_at = now()
      where id = ${id} and user_id = ${userId} and revoked_at is null returning id`);
    return rows.map((r) => r.id);
  }

  /** Revokes every live session of the user except `keepId` (all when null); answers their ids. */
  async revokeAllExcept(userId: string, keepId: string | null): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(sql`
      update sessions set revoked_at = now()
      where user_id = ${userId} and revoked_at is null
        and (${keepId}::uuid is null or id <> ${keepId}::uuid)
      returning id`);
    return rows.map((r) => r.id);
  }
}
