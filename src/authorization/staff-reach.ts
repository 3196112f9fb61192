// Whom staff may act on (CONTRACT §21; docs/moderation.md, "Whom staff may act on"). A staff
// action on a user (a moderation decision on them or on what they wrote, a restore, a change of
// their roles, an edit or deletion of their content by someone other than its owner) is refused:
// - 403 authorization.error.forbidden when the target holds a permission the actor lacks (what
//   their active roles grant together is not a subset of what the actor's grant);
// - 409 authorization.error.last_admin when the action takes something from the target and no
//   other active administrator (holder of `admin`, neither suspended nor deleted) would remain.
// The checks run inside the action's transaction, with the target's row and the administrators'
// role rows locked, so a role change or another suspension running at the same moment waits for
// it and then sees it. A refusal rolls that transaction back, so it is appended to the audit log
// on its own, after.
import type { Caller } from '../auth/index.js';
import type { UserRepository } from '../auth/index.js';
import type { Queryable } from '../db/client.js';
import type { AuditLog } from '../audit/index.js';
import { AppError, conflict, forbidden } from '../shared/errors.js';
import { ADMIN_ROLE } from './catalogue.js';
import type { RolesRepository } from './roles-repository.js';

/** The action as the audit log names it (`report.suspend_user`, `role.assign`, …) and what it was about. */
export interface StaffAct {
  action: string;
  targetType: string;
  targetId: string;
}

/** Whether the action takes something from its target (the last administrator is spared it). */
export type Takes = 'takes' | 'gives';

export class StaffReach {
  /** The refusals this module raised, with the reason the audit log keeps. */
  private readonly refusals = new WeakMap<AppError, string>();

  constructor(
    private readonly users: UserRepository,
    private readonly roles: RolesRepository,
    private readonly auditLog: AuditLog,
  ) {}

  /**
   * Refuses `actor` acting on `targetUserId` (403, then 409 for an action that takes). Locks the
   * target's row until the transaction ends; returns the roles the target holds.
   */
  async check(tx: Queryable, actor: Caller, targetUserId: string, takes: Takes): Promise<string[]> {
    const roles = (await this.users.in(tx).lockRoles(targetUserId)) ?? [];
    await this.requireWithin(tx, actor, roles, `user ${targetUserId}`);
    if (takes === 'takes' && roles.includes(ADMIN_ROLE) && !(await this.anotherActiveAdmin(tx, targetUserId))) {
      throw this.refusal(
        conflict('authorization.error.last_admin', 'The last active administrator cannot be the target of this action'),
        `user ${targetUserId} is the last active administrator`,
      );
    }
    return roles;
  }

  /**
   * 403 when a user holding `roles` would hold a permission the actor lacks. The grants are read in
   * `tx` itself: the per-node cache of role permissions may reload, and a reload waiting on the one
   * embedded connection while this transaction holds it would never end.
   */
  async requireWithin(tx: Queryable, actor: Caller, roles: string[], who: string, message = 'The target holds permissions you do not hold'): Promise<void> {
    const held = (await this.roles.in(tx).permissionsOfRoles(roles)).map((p) => p.name);
    const lacking = [...new Set(held)].filter((permission) => !actor.permissions.has(permission)).sort();
    if (lacking.length) {
      throw this.refusal(forbidden('authorization.error.forbidden', message), `${who} holds ${lacking.join(', ')}, which the actor lacks`);
    }
  }

  /**
   * Whether an administrator other than `userId` can still act. The holders of `admin` are locked
   * first, then read in a statement of their own, so two administrators suspending or demoting
   * each other at the same moment take turns and the second sees the first.
   */
  async anotherActiveAdmin(tx: Queryable, userId: string): Promise<boolean> {
    const users = this.users.in(tx);
    await users.lockHolders(ADMIN_ROLE);
    return (await users.activeHolders(ADMIN_ROLE)).some((id) => id !== userId);
  }

  /** A 409 last_admin of the role endpoints, audited as a refusal like the others. */
  lastAdmin(message: string, reason: string): AppError {
    return this.refusal(conflict('authorization.error.last_admin', message), reason);
  }

  /** Runs `act`; a refusal of this module is appended to the audit log as `<action>.refused` and thrown on. */
  async audited<T>(actor: Caller, act: StaffAct, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      const reason = err instanceof AppError ? this.refusals.get(err) : undefined;
      if (reason !== undefined) {
        await this.auditLog.append({
          actorId: actor.userId,
          action: `${act.action}.refused`,
          targetType: act.targetType,
          targetId: act.targetId,
          note: reason,
        });
      }
      throw err;
    }
  }

  private refusal(error: AppError, reason: string): AppError {
    this.refusals.set(error, reason);
    return error;
  }
}
