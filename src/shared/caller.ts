// Who is calling, as every domain and door sees it once the caller is resolved (src/auth/caller.ts
// resolves it): the base holds it, so that checking a permission needs no part of auth.
import { unauthorized, forbidden } from './errors.js';

export interface Caller {
  userId: string;
  sessionId: string;
  username: string;
  /** The primary role (the highest of admin, moderator, broker, end_user, else the first). */
  role: string;
  /** Every role the user holds; permissions are what these grant together. */
  roles: readonly string[];
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
