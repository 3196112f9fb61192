// Queries on the `sessions` table (migrations 0001, 0014). A session is live while revoked_at is
// null; its current refresh token (hash, and number: refresh_generation) is usable until
// refresh_expires_at. Times are compared with the database's
// now(), so every node agrees on what has expired.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { DEFAULT_SETTINGS } from '../settings/index.js';

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
  /** Seconds since last_seen_at, by the database's clock. */
  idle_seconds: number;
  /** The user's privacy.session_timeout, minutes. */
  timeout_minutes: number;
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
  /** Seconds since last_seen_at, by the database's clock. */
  idle_seconds: number;
  /** The user's privacy.session_timeout, minutes. */
  timeout_minutes: number;
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
 * Idle past the timeout as the database alone knows it: last_seen_at is written at most once per
 * TOUCH_EVERY (a minute, or a quarter of a shorter timeout: idle-timeout.ts), so it may lag the
 * true last activity by that much; the sweep ends a session idle for its timeout *plus* that lag,
 * never early for an active user. A request's check is exact (idle-timeout.ts). `minuteSeconds`:
 * seconds in one minute of the setting (60 but in tests).
 */
const idleExpired = (minuteSeconds: number) =>
  sql`(now() - s.last_seen_at) > make_interval(secs => ${timeoutMinutes} * ${minuteSeconds}::float8 + least(60, ${timeoutMinutes} * 15))`;

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
   * the transaction (two refreshes of one session take turns), with what its idle check needs.
   */
  async lockRefreshable(id: string, username: string): Promise<RefreshableSessionRow | undefined> {
    const [row] = await this.db.rows<RefreshableSessionRow>(sql`
      select s.user_id, u.username, s.refresh_token_hash, s.refresh_generation,
             extract(epoch from (now() - s.last_seen_at))::float8 as idle_seconds, ${timeoutMinutes} as timeout_minutes
      from sessions s join users u on u.id = s.user_id
      where s.id = ${id} and s.revoked_at is null and s.refresh_expires_at > now()
        and lower(u.username) = lower(${username})
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
   * The session's state for a request, with what its idle check needs (idle-timeout.ts). A
   * session of a suspended user counts as revoked (CONTRACT §21): a login that passed its check
   * just before the suspension committed opens no usable session.
   */
  async findForCaller(id: string, userId: string): Promise<CallerSessionRow | undefined> {
    const [row] = await this.db.rows<CallerSessionRow>(sql`
      select u.role, array(select role_name from user_roles where user_id = u.id order by position, role_name) as roles,
             u.username, (s.revoked_at is not null or u.suspended_at is not null) as revoked, s.ended_idle,
             extract(epoch from (now() - s.last_seen_at))::float8 as idle_seconds, t.minutes as timeout_minutes
      from sessions s join users u on u.id = s.user_id
      cross join lateral (select ${timeoutMinutes} as minutes) t
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
  async revokeIdle(limit: number, minuteSeconds: number): Promise<{ id: string; user_id: string }[]> {
    return this.db.rows<{ id: string; user_id: string }>(sql`
      update sessions set revoked_at = now(), ended_idle = true
      where id in (
        select s.id from sessions s
        where s.revoked_at is null and s.last_seen_at < now() - make_interval(secs => ${minuteSeconds}) and ${idleExpired(minuteSeconds)}
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

  /** Erasure (CONTRACT §22): every session row of the user, ended or not. */
  async deleteAllOf(userId: string): Promise<void> {
    await this.db.rows(sql`delete from sessions where user_id = ${userId}`);
  }
}
