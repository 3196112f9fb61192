// Who is calling: resolved from a bearer access token plus a live-session check in the database,
// so a revoked session is refused from the next request on, on every node.
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../db/client.js';
import { unauthorized, forbidden } from '../shared/errors.js';
import type { RolePermissions } from '../authorization/role-permissions.js';
import type { TokenService } from './tokens.js';

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

/** Touch last_seen_at at most this often per session (avoids a write per request). */
const LAST_SEEN_RESOLUTION_MS = 60_000;

export class CallerResolver {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly tokens: TokenService,
    private readonly rolePermissions: RolePermissions,
  ) {}

  async resolve(accessToken: string): Promise<Caller> {
    const claims = await this.tokens.verifyAccessToken(accessToken);
    const [row] = await this.database.rows<{ role: string; username: string; revoked: boolean; last_seen_ms: number }>(sql`
      select u.role, u.username, (s.revoked_at is not null) as revoked,
             (extract(epoch from now() - s.last_seen_at) * 1000)::float8 as last_seen_ms
      from sessions s join users u on u.id = s.user_id
      where s.id = ${claims.sessionId} and s.user_id = ${claims.userId}`);
    if (!row) throw unauthorized('auth.error.invalid_token', 'Session not found');
    if (row.revoked) throw unauthorized('auth.error.session_revoked', 'Session has ended');
    if (row.last_seen_ms > LAST_SEEN_RESOLUTION_MS) {
      void this.database
        .rows(sql`update sessions set last_seen_at = now() where id = ${claims.sessionId}`)
        .catch(() => undefined);
    }
    return {
      userId: claims.userId,
      sessionId: claims.sessionId,
      username: row.username,
      role: row.role,
      permissions: await this.rolePermissions.forRole(row.role),
    };
  }
}
