// Queries on the `sessions` table (migrations 0001, 0014). A session is live while revoked_at is
// null; its current refresh token (hash, and number: refresh_generation) is usable until
// refresh_expires_at. Times are compared with the database's
// now(), so every node agrees on what has expired.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { DEFAULT_SETTINGS } from '../settings/schemas.js';

interface NewSession {
  id: string;
  userId: string;
  refreshTokenHash: string;
  refreshGeneration: number;
  userAgent: string;
  ip: string;
  refreshTtlSeconds: number;
}

interface RefreshableSessionRow {
  user_id: string;
  username: string;
  refresh_token_hash: string;
  refresh_generation: number;
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
  /** The user's primary role (users.role). */
  role: string;
  /** Every role the user holds (user_roles), in the order assigned. */
  roles: string[];
  username: string;
  revoked: boolean;
  /** Ended for idleness (privacy.session_timeout), by a request or by the sweep. */
  ended_idle: boolean;
  /** Idle past the user's privacy.session_timeout: the session must end now. */
  idle_expired: boolean;
  /** last_seen_at is old enough to be written again (see TOUCH_EVERY). */
  touch_due: boolean;
  /** Seconds until touch_due (0 when due). */
  touch_in_seconds: number;
  /** TOUCH_EVERY for this session's user, in seconds. */
  touch_every_seconds: number;
}

/**
 * The user's privacy.session_timeout in minutes (settings overrides, else the default), for the
 * session row `s`. The table is the settings' (user_settings), read here so one statement
 * decides a request's session.
 */
const timeoutMinutes = sql`coalesce((
  select case when jsonb_typeof(us.overrides->'privacy.session_timeout') = 'number'
              then (us.overrides->>'privacy.session_timeout')::int end
  from user_settings us where us.user_id = s.user_id), ${DEFAULT_SETTINGS.privacy.session_timeout})`;

/**
 * last_seen_at is written at most once per TOUCH_EVERY (a minute, or a quarter of a shorter
 * timeout), so it may lag the true last activity by that much. A session ends when it has
 * been idle for its timeout *plus* that lag: never early for an active user, at most the lag late.
 */
const touchEverySeconds = sql`least(60, ${timeoutMinutes} * 15)`;
const idleExpired = sql`(now() - s.last_seen_at) > make_interval(mins => ${timeoutMinutes}) + make_interval(secs => ${touchEverySeconds})`;

export class SessionRepository extends Repository {
  async insert(session: NewSession): Promise<void> {
    await this.db.rows(sql`
      insert into sessions (id, user_id, refresh_token_hash, refresh_generation, user_agent, ip, refresh_expires_at)
      values (${session.id}, ${session.userId}, ${session.refreshTokenHash}, ${session.refreshGeneration}, ${session.userAgent}, ${session.ip},
              now() + make_interval(secs => ${session.refreshTtlSeconds}))`);
  }

  /**
   * Whether the user has signed in before, and from this user agent (any session, ended ones
   * too): a login from an agent never seen makes `login.new_device` (CONTRACT §17).
   */
  async userAgentHistory(userId: string, userAgent: string): Promise<{ any: boolean; seen: boolean }> {
    const [row] = await this.db.rows<{ any: boolean; seen: boolean }>(sql`
      select exists(select 1 from sessions where user_id = ${userId}) as any,
             exists(select 1 from sessions where user_id = ${userId} and user_agent = ${userAgent}) as seen`);
    return row;
  }

  /**
   * The live, unexpired session `id` if its user is `username` (any case), locked until the end of
   * the transaction (two refreshes of one session take turns).
   */
  async lockRefreshable(id: string, username: string): Promise<RefreshableSessionRow | undefined> {
    const [row] = await this.db.rows<RefreshableSessionRow>(sql`
      select s.user_id, u.username, s.refresh_token_hash, s.refresh_generation
      from sessions s join users u on u.id = s.user_id
      where s.id = ${id} and s.revoked_at is null and s.refresh_expires_at > now()
        and lower(u.username) = lower(${username}) and not ${idleExpired}
      for update of s`);
    return row;
  }

  /** Makes `generation` (with its token's hash) the session's current refresh token; the session was just used. */
  async rotateRefreshToken(id: string, refreshTokenHash: string, generation: number): Promise<void> {
    await this.db.rows(sql`
      update sessions set refresh_token_hash = ${refreshTokenHash}, refresh_generation = ${generation}, last_seen_at = now()
      where id = ${id}`);
  }

  /**
   * The session's state for a request. The user's timeout is read once (the lateral subquery) and
   * the idle arithmetic of `idleExpired` / TOUCH_EVERY is done here on the seconds since last_seen_at
   * as the database's clock measures them.
   */
  async findForCaller(id: string, userId: string): Promise<CallerSessionRow | undefined> {
    const [row] = await this.db.rows<{ role: string; roles: string[]; username: string; revoked: boolean; ended_idle: boolean; idle_seconds: number; timeout_minutes: number }>(sql`
      select u.role, array(select role_name from user_roles where user_id = u.id order by position, role_name) as roles,
             u.username, (s.revoked_at is not null) as revoked, s.ended_idle,
             extract(epoch from (now() - s.last_seen_at))::float8 as idle_seconds, t.minutes as timeout_minutes
      from sessions s join users u on u.id = s.user_id
      cross join lateral (select ${timeoutMinutes} as minutes) t
      where s.id = ${id} and s.user_id = ${userId}`);
    if (!row) return undefined;
    const touchEvery = Math.min(60, row.timeout_minutes * 15);
    return {
      role: row.role,
      roles: row.roles,
      username: row.username,
      revoked: row.revoked,
      ended_idle: row.ended_idle,
      idle_expired: row.idle_seconds > row.timeout_minutes * 60 + touchEvery,
      touch_due: row.idle_seconds > touchEvery,
      touch_in_seconds: Math.max(0, touchEvery - row.idle_seconds),
      touch_every_seconds: touchEvery,
    };
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

  /** Ends the user's live session `id` because it sat idle past its timeout; answers the ids ended (none or it). */
  async endIdle(userId: string, id: string): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(sql`
      update sessions set revoked_at = now(), ended_idle = true
      where id = ${id} and user_id = ${userId} and revoked_at is null returning id`);
    return rows.map((r) => r.id);
  }

  /** Revokes the user's live session `id`; answers the ids revoked (none or it). */
  async revoke(userId: string, id: string): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(sql`
      update sessions set revoked_at = now()
      where id = ${id} and user_id = ${userId} and revoked_at is null returning id`);
    return rows.map((r) => r.id);
  }

  /** Revokes up to `limit` live sessions idle past their user's timeout; answers them. */
  async revokeIdle(limit: number): Promise<{ id: string; user_id: string }[]> {
    return this.db.rows<{ id: string; user_id: string }>(sql`
      update sessions set revoked_at = now(), ended_idle = true
      where id in (
        select s.id from sessions s
        where s.revoked_at is null and s.last_seen_at < now() - interval '1 minute' and ${idleExpired}
        limit ${limit} for update skip locked)
        and revoked_at is null
      returning id, user_id`);
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
