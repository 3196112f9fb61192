// Roles and permissions (SPEC §4.2): listing, and creation by callers who hold create:permission /
// create:role (the route checks those). A change clears the role-permission cache of this node
// at once; other nodes pick it up within that cache's lifetime.
import { badRequest, isUniqueViolation } from '../shared/errors.js';
import { isUuid, newId } from '../shared/ids.js';
import type { DatabaseHandle } from '../db/client.js';
import type { RolePermissions } from './role-permissions.js';
import type { PermissionRow, RoleRow, RolesRepository } from './roles-repository.js';
import type { CreatePermissionInput, CreateRoleInput, PermissionView, RoleView } from './schemas.js';

interface PermissionListing {
  permission_names: string[];
  permissions: PermissionView[];
}

/** `a, b,,c` → `['a', 'b', 'c']` (duplicates dropped). */
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

export class RoleService {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly repository: RolesRepository,
    private readonly rolePermissions: RolePermissions,
  ) {}

  /** Every permission, or (with role names, comma-separated) the active permissions those active roles grant. */
  /** The permissions of the named roles, or all of them when none is named. */
  async listPermissions(roleNames: string[]): Promise<PermissionListing> {
    const rows = roleNames.length ? await this.repository.permissionsOfRoles(roleNames) : await this.repository.allPermissions();
    const permissions = rows.map(toPermission);
    return { permission_names: permissions.map((p) => p.name), permissions };
  }

  async createPermission(input: CreatePermissionInput): Promise<PermissionView> {
    const row = await refusingTakenName(
      () => this.repository.insertPermission(input.name, input.description),
      'authorization.error.permission_exists',
      `Permission ${input.name} already exists`,
    );
    await this.rolePermissions.changed();
    return toPermission(row);
  }

  async listRoles(): Promise<RoleView[]> {
    return (await this.repository.allRoles()).map(toRole);
  }

  async createRole(input: CreateRoleInput): Promise<RoleView> {
    const ids = [...new Set(input.permission_ids.map((id) => id.trim().toLowerCase()))];
    const existing = await this.repository.existingPermissionIds(ids.filter(isUuid));
    const unknownIndex = input.permission_ids.findIndex((id) => !existing.has(id.trim().toLowerCase()));
    if (unknownIndex >= 0) {
      const id = input.permission_ids[unknownIndex];
      throw badRequest('authorization.error.unknown_permission', `Permission ${id} does not exist`, {
        field: `permission_ids.${unknownIndex}`,
        constraint: 'id of an existing permission',
      });
    }
    const roleId = newId();
    await refusingTakenName(
      () =>
        this.database.transaction(async (tx) => {
          const roles = this.repository.in(tx);
          await roles.insertRole(roleId, input.name, input.description ?? '');
          for (const permissionId of ids) await roles.grant(roleId, permissionId);
        }),
      'authorization.error.role_exists',
      `Role ${input.name} already exists`,
    );
    await this.rolePermissions.changed();
    const role = await this.repository.findRole(roleId);
    if (!role) throw new Error(`role ${roleId} vanished right after it was created`);
    return toRole(role);
  }
}
