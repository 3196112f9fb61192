// Roles and permissions (SPEC §4.2): listing, and creation by callers who hold create:permission /
// create:role (the route checks those). A change clears the role-permission cache of this node
// at once; other nodes pick it up within that cache's lifetime.
import { badRequest, isUniqueViolation } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import type { DatabaseHandle } from '../db/client.js';
import type { RolePermissions } from './role-permissions.js';
import { RolesRepository } from './roles-repository.js';
import type { CreatePermissionInput, CreateRoleInput, PermissionView, RoleView } from './schemas.js';

export interface PermissionListing {
  permission_names: string[];
  permissions: PermissionView[];
}

/** `a, b,,c` → `['a', 'b', 'c']` (duplicates dropped). */
export function parseRoleNames(value: string | undefined): string[] {
  if (!value) return [];
  return [...new Set(value.split(',').map((s) => s.trim()).filter(Boolean))].slice(0, 100);
}

export class RoleService {
  private readonly repository: RolesRepository;

  constructor(
    database: DatabaseHandle,
    private readonly rolePermissions: RolePermissions,
  ) {
    this.repository = new RolesRepository(database);
  }

  /** Every permission, or (with role names) the active permissions those active roles grant. */
  async listPermissions(roleNames: string[]): Promise<PermissionListing> {
    const permissions = roleNames.length
      ? await this.repository.permissionsOfRoles(roleNames)
      : await this.repository.allPermissions();
    return { permission_names: permissions.map((p) => p.name), permissions };
  }

  async createPermission(input: CreatePermissionInput): Promise<PermissionView> {
    try {
      const permission = await this.repository.insertPermission(input.name, input.description);
      this.rolePermissions.invalidate();
      return permission;
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw badRequest('authorization.error.permission_exists', `Permission ${input.name} already exists`, {
          field: 'name',
          constraint: 'unique',
        });
      }
      throw err;
    }
  }

  listRoles(): Promise<RoleView[]> {
    return this.repository.allRoles();
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
    let roleId: string;
    try {
      roleId = await this.repository.insertRole(input.name, input.description ?? '', ids);
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw badRequest('authorization.error.role_exists', `Role ${input.name} already exists`, {
          field: 'name',
          constraint: 'unique',
        });
      }
      throw err;
    }
    this.rolePermissions.invalidate();
    return (await this.repository.roleById(roleId))!;
  }
}
