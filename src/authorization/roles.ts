// Roles and permissions (SPEC §4.2, CONTRACT §21): listing; creating them (create:permission,
// create:role); replacing a user's roles (assign:role) and changing a role (update:role). The
// routes check those permissions. A change to what roles grant, or to whom holds which, goes
// through Revocations: its invalidations commit with it, and it answers once every node has
// dropped what it cached, so it counts from the next request and socket event on every node.
// Every change is appended to the audit log in its own transaction.
import { badRequest, conflict, isUniqueViolation, notFound } from '../shared/errors.js';
import { isUuid, newId } from '../shared/ids.js';
import type { DatabaseHandle } from '../db/client.js';
import type { Caller } from '../auth/index.js';
import type { Revocations } from '../auth/index.js';
import type { UserRepository } from '../auth/index.js';
import type { AuditLog } from '../audit/index.js';
import { ADMIN_ROLE } from './catalogue.js';
import type { RolePermissions } from './role-permissions.js';
import type { StaffReach } from './staff-reach.js';
import type { PermissionRow, RoleRow, RolesRepository } from './roles-repository.js';
import type { AssignRolesInput, CreatePermissionInput, CreateRoleInput, PermissionView, RoleView, UpdateRoleInput, UserRolesView } from './schemas.js';

interface PermissionListing {
  permission_names: string[];
  permissions: PermissionView[];
}

const toPermission = (r: PermissionRow): PermissionView => ({
  _id: r.id,
  name: r.name,
  description: r.description,
  is_active: r.is_active,
  created_at: r.created_at.toISOString(),
});

const toRole = (r: RoleRow): RoleView => ({
  _id: r.id,
  name: r.name,
  description: r.description,
  permission_ids: r.permission_ids,
  permission_names: r.permission_names,
  is_active: r.is_active,
  created_at: r.created_at.toISOString(),
});

/** Runs `insert`; a name already taken (unique violation) becomes a 400 naming it. */
async function refusingTakenName<T>(insert: () => Promise<T>, code: string, message: string): Promise<T> {
  try {
    return await insert();
  } catch (err) {
    if (isUniqueViolation(err)) throw badRequest(code, message, { field: 'name', constraint: 'unique' });
    throw err;
  }
}

/** The roles that outrank the others when one must stand for a user, highest first (CONTRACT §21). */
const ROLE_RANK = ['admin', 'moderator', 'broker', 'end_user'];

/** The primary role of a user holding `roleNames`: the highest ranked, else the first. */
export function primaryRole(roleNames: readonly string[]): string {
  return ROLE_RANK.find((role) => roleNames.includes(role)) ?? roleNames[0];
}

/** The permissions the admin role must keep, so that someone can still manage roles without SQL. */
const ADMIN_KEEPS = ['assign:role', 'update:role'];

const lastAdmin = (message: string) => conflict('authorization.error.last_admin', message);

export class RoleService {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly repository: RolesRepository,
    private readonly rolePermissions: RolePermissions,
    private readonly users: UserRepository,
    private readonly revocations: Revocations,
    private readonly auditLog: AuditLog,
    private readonly staff: StaffReach,
  ) {}

  /** Every permission, or (with role names, comma-separated) the active permissions those active roles grant. */
  /** The permissions of the named roles, or all of them when none is named. */
  async listPermissions(roleNames: string[]): Promise<PermissionListing> {
    const rows = roleNames.length ? await this.repository.permissionsOfRoles(roleNames) : await this.repository.allPermissions();
    const permissions = rows.map(toPermission);
    return { permission_names: permissions.map((p) => p.name), permissions };
  }

  async createPermission(actor: Caller, input: CreatePermissionInput): Promise<PermissionView> {
    const row = await refusingTakenName(
      () =>
        this.database.transaction(async (tx) => {
          const inserted = await this.repository.in(tx).insertPermission(input.name, input.description);
          await this.auditLog.append(
            { actorId: actor.userId, action: 'permission.create', targetType: 'permission', targetId: inserted.id, note: inserted.name },
            tx,
          );
          return inserted;
        }),
      'authorization.error.permission_exists',
      `Permission ${input.name} already exists`,
    );
    await this.rolePermissions.changed();
    return toPermission(row);
  }

  async listRoles(): Promise<RoleView[]> {
    return (await this.repository.allRoles()).map(toRole);
  }

  /** The permissions `permissionIds` names (repeats dropped), by id; an unknown one is 400. */
  private async knownPermissions(permissionIds: string[]): Promise<Map<string, string>> {
    const ids = [...new Set(permissionIds.map((id) => id.trim().toLowerCase()))];
    const rows = await this.repository.permissionsWithIds(ids.filter(isUuid));
    const names = new Map(rows.map((r) => [r.id.toLowerCase(), r.name]));
    const unknownIndex = permissionIds.findIndex((id) => !names.has(id.trim().toLowerCase()));
    if (unknownIndex >= 0) {
      const id = permissionIds[unknownIndex];
      throw badRequest('authorization.error.unknown_permission', `Permission ${id} does not exist`, {
        field: `permission_ids.${unknownIndex}`,
        constraint: 'id of an existing permission',
      });
    }
    return names;
  }

  async createRole(actor: Caller, input: CreateRoleInput): Promise<RoleView> {
    const ids = [...(await this.knownPermissions(input.permission_ids)).keys()];
    const roleId = newId();
    await refusingTakenName(
      () =>
        this.database.transaction(async (tx) => {
          const roles = this.repository.in(tx);
          await roles.insertRole(roleId, input.name, input.description ?? '');
          for (const permissionId of ids) await roles.grant(roleId, permissionId);
          await this.auditLog.append({ actorId: actor.userId, action: 'role.create', targetType: 'role', targetId: roleId, note: input.name }, tx);
        }),
      'authorization.error.role_exists',
      `Role ${input.name} already exists`,
    );
    await this.rolePermissions.changed();
    const role = await this.repository.findRole(roleId);
    if (!role) throw new Error(`role ${roleId} vanished right after it was created`);
    return toRole(role);
  }

  /**
   * Replaces the roles `userId` holds (CONTRACT §21). Unknown role names: 400; unknown user: 404;
   * a user holding, or roles granting, a permission the actor lacks: 403 (StaffReach); taking
   * admin when no other active administrator remains: 409. Counts from the user's next request and
   * socket event on every node (their cached sessions and profile are dropped everywhere).
   */
  async assignRoles(actor: Caller, userId: string, input: AssignRolesInput): Promise<UserRolesView> {
    const roleNames = [...new Set(input.role_names)];
    const known = await this.repository.existingRoleNames(roleNames);
    const unknownIndex = input.role_names.findIndex((name) => !known.has(name));
    if (unknownIndex >= 0) {
      throw badRequest('authorization.error.unknown_role', `Role ${input.role_names[unknownIndex]} does not exist`, {
        field: `role_names.${unknownIndex}`,
        constraint: 'name of an existing role',
      });
    }
    const user = userId.toLowerCase();
    await this.staff.audited(actor, { action: 'role.assign', targetType: 'user', targetId: user }, () =>
      this.revocations.revoke(async (tx) => {
        const users = this.users.in(tx);
        const before = await users.lockRoles(user);
        if (!before) throw notFound('user.error.not_found', 'No user with this id', { field: 'userId', constraint: 'existing user' });
        // Neither the user as they are, nor as they would be, may hold more than the actor does.
        await this.staff.requireWithin(tx, actor, before, `user ${user}`);
        await this.staff.requireWithin(tx, actor, roleNames, `the roles ${roleNames.join(', ')}`, 'These roles grant permissions you do not hold');
        if (before.includes(ADMIN_ROLE) && !roleNames.includes(ADMIN_ROLE) && !(await this.staff.anotherActiveAdmin(tx, user))) {
          throw this.staff.lastAdmin('The last active administrator cannot lose the admin role', `user ${user} is the last active administrator`);
        }
        await users.replaceRoles(user, roleNames, primaryRole(roleNames));
        await this.auditLog.append(
          { actorId: actor.userId, action: 'role.assign', targetType: 'user', targetId: user, note: `${before.join(', ')} -> ${roleNames.join(', ')}` },
          tx,
        );
        return { sessions: [], users: [user] };
      }),
    );
    return { user_id: user, role_names: roleNames };
  }

  /**
   * Changes a role's description, permissions (the set replaces its grants) or activity. Unknown
   * role or permission: 400. The admin role cannot be made inactive nor lose assign:role or
   * update:role (409 last_admin): nobody could manage roles again without SQL.
   */
  async updateRole(actor: Caller, roleId: string, input: UpdateRoleInput): Promise<RoleView> {
    const id = roleId.toLowerCase();
    const names = input.permission_ids ? await this.knownPermissions(input.permission_ids) : null;
    await this.revocations.revoke(async (tx) => {
      const roles = this.repository.in(tx);
      const role = await roles.lockRole(id);
      if (!role) throw badRequest('authorization.error.unknown_role', `Role ${roleId} does not exist`, { field: 'id', constraint: 'id of an existing role' });
      if (role.name === ADMIN_ROLE) {
        if (input.is_active === false) throw lastAdmin('The admin role cannot be made inactive: no one would be an active administrator');
        const lost = names && ADMIN_KEEPS.filter((permission) => ![...names.values()].includes(permission));
        if (lost && lost.length) throw lastAdmin(`The admin role must keep ${lost.join(' and ')}`);
      }
      await roles.updateRole(id, { description: input.description, isActive: input.is_active });
      const changes: string[] = [];
      if (input.description !== undefined && input.description !== role.description) changes.push('description changed');
      if (input.is_active !== undefined && input.is_active !== role.is_active) changes.push(input.is_active ? 'activated' : 'deactivated');
      if (names) {
        const ids = [...names.keys()];
        await roles.replaceGrants(id, ids);
        const before = new Set(role.permission_ids.map((p) => p.toLowerCase()));
        const added = ids.filter((p) => !before.has(p)).map((p) => names.get(p));
        const removedIds = [...before].filter((p) => !names.has(p));
        const removed = (await roles.permissionsWithIds(removedIds)).map((p) => p.name);
        if (added.length) changes.push(`granted ${added.join(', ')}`);
        if (removed.length) changes.push(`revoked ${removed.join(', ')}`);
      }
      await this.auditLog.append(
        { actorId: actor.userId, action: 'role.update', targetType: 'role', targetId: id, note: `${role.name}: ${changes.join('; ') || 'no change'}` },
        tx,
      );
      return { sessions: [], roles: true };
    });
    const updated = await this.repository.findRole(id);
    if (!updated) throw new Error(`role ${id} vanished right after it was updated`);
    return toRole(updated);
  }
}
