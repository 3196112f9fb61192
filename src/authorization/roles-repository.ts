// The queries behind roles and permissions (tables of migration 0001: roles, permissions,
// role_permissions). Constructed on the database or on a transaction.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { sqlList } from '../db/sql-fragments.js';
import { newId } from '../shared/ids.js';

export interface PermissionRow {
  id: string;
  name: string;
  description: string;
  is_active: boolean;
  created_at: Date;
}

export interface RoleRow extends PermissionRow {
  permission_ids: string[];
  permission_names: string[];
}

/** One permission an active role grants (an active permission). */
interface GrantRow {
  role: string;
  permission: string;
}

const roleSelect = sql`
  select r.id, r.name, r.description, r.is_active, r.created_at,
         coalesce(array_agg(p.id::text order by p.name) filter (where p.id is not null), '{}') as permission_ids,
         coalesce(array_agg(p.name order by p.name) filter (where p.id is not null), '{}') as permission_names
  from roles r
  left join role_permissions rp on rp.role_id = r.id
  left join permissions p on p.id = rp.permission_id`;

export class RolesRepository extends Repository {
  async allPermissions(): Promise<PermissionRow[]> {
    return this.db.rows<PermissionRow>(sql`select id, name, description, is_active, created_at from permissions order by name`);
  }

  /** Active permissions granted to any of the given active roles (what those roles can do). */
  async permissionsOfRoles(roleNames: string[]): Promise<PermissionRow[]> {
    if (roleNames.length === 0) return [];
    return this.db.rows<PermissionRow>(sql`
      select distinct p.id, p.name, p.description, p.is_active, p.created_at
      from permissions p
      join role_permissions rp on rp.permission_id = p.id
      join roles r on r.id = rp.role_id
      where r.name in (${sqlList(roleNames)}) and r.is_active and p.is_active
      order by p.name`);
  }

  /** Every grant of an active permission by an active role. */
  async activeGrants(): Promise<GrantRow[]> {
    return this.db.rows<GrantRow>(sql`
      select r.name as role, p.name as permission
      from roles r
      join role_permissions rp on rp.role_id = r.id
      join permissions p on p.id = rp.permission_id
      where r.is_active and p.is_active`);
  }

  /** The ids among `ids` (valid uuids) that name an existing permission. */
  async existingPermissionIds(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const list = sql.join(
      ids.map((id) => sql`${id}::uuid`),
      sql`, `,
    );
    const rows = await this.db.rows<{ id: string }>(sql`select id from permissions where id in (${list})`);
    return new Set(rows.map((r) => r.id.toLowerCase()));
  }

  /** The permissions among `ids` (valid uuids) that exist, with their names. */
  async permissionsWithIds(ids: string[]): Promise<{ id: string; name: string }[]> {
    if (ids.length === 0) return [];
    const list = sql.join(
      ids.map((id) => sql`${id}::uuid`),
      sql`, `,
    );
    return this.db.rows<{ id: string; name: string }>(sql`select id, name from permissions where id in (${list})`);
  }

  /** Which of `names` name an existing role. */
  async existingRoleNames(names: string[]): Promise<Set<string>> {
    if (names.length === 0) return new Set();
    const rows = await this.db.rows<{ name: string }>(sql`select name from roles where name in (${sqlList(names)})`);
    return new Set(rows.map((r) => r.name));
  }

  /** The role's name, activity and permission ids, its row locked until the transaction ends. */
  async lockRole(id: string): Promise<{ name: string; is_active: boolean; description: string; permission_ids: string[] } | undefined> {
    const [row] = await this.db.rows<{ name: string; is_active: boolean; description: string }>(sql`
      select name, is_active, description from roles where id = ${id} for update`);
    if (!row) return undefined;
    const grants = await this.db.rows<{ permission_id: string }>(sql`select permission_id from role_permissions where role_id = ${id}`);
    return { ...row, permission_ids: grants.map((g) => g.permission_id) };
  }

  async updateRole(id: string, changes: { description?: string; isActive?: boolean }): Promise<void> {
    await this.db.rows(sql`
      update roles set description = coalesce(${changes.description ?? null}, description),
                       is_active = coalesce(${changes.isActive ?? null}::boolean, is_active)
      where id = ${id}`);
  }

  /** The role grants exactly `permissionIds` from now on. */
  async replaceGrants(roleId: string, permissionIds: string[]): Promise<void> {
    if (permissionIds.length === 0) {
      await this.db.rows(sql`delete from role_permissions where role_id = ${roleId}`);
      return;
    }
    const list = sql.join(
      permissionIds.map((id) => sql`${id}::uuid`),
      sql`, `,
    );
    await this.db.rows(sql`delete from role_permissions where role_id = ${roleId} and permission_id not in (${list})`);
    for (const permissionId of permissionIds) await this.grant(roleId, permissionId);
  }

  /** Inserts a permission; a duplicate name surfaces as a unique violation. */
  async insertPermission(name: string, description: string): Promise<PermissionRow> {
    const [row] = await this.db.rows<PermissionRow>(sql`
      insert into permissions (id, name, description) values (${newId()}, ${name}, ${description})
      returning id, name, description, is_active, created_at`);
    return row;
  }

  async allRoles(): Promise<RoleRow[]> {
    return this.db.rows<RoleRow>(sql`${roleSelect} group by r.id order by r.created_at, r.name`);
  }

  async findRole(id: string): Promise<RoleRow | undefined> {
    const [row] = await this.db.rows<RoleRow>(sql`${roleSelect} where r.id = ${id} group by r.id`);
    return row;
  }

  /** Inserts a role; a duplicate name surfaces as a unique violation. */
  async insertRole(id: string, name: string, description: string): Promise<void> {
    await this.db.rows(sql`insert into roles (id, name, description) values (${id}, ${name}, ${description})`);
  }

  async grant(roleId: string, permissionId: string): Promise<void> {
    await this.db.rows(sql`
      insert into role_permissions (role_id, permission_id) values (${roleId}, ${permissionId}::uuid)
      on conflict do nothing`);
  }

  // Seeding: only adds, so an administrator's later changes are kept.

  /** True when it was missing (and is now inserted). */
  async insertPermissionIfMissing(name: string, description: string): Promise<boolean> {
    const rows = await this.db.rows(
      sql`insert into permissions (id, name, description) values (${newId()}, ${name}, ${description}) on conflict (name) do nothing returning id`,
    );
    return rows.length > 0;
  }

  /** True when it was missing (and is now inserted). */
  async insertRoleIfMissing(name: string, description: string): Promise<boolean> {
    const rows = await this.db.rows(
      sql`insert into roles (id, name, description) values (${newId()}, ${name}, ${description}) on conflict (name) do nothing returning id`,
    );
    return rows.length > 0;
  }

  async grantByName(roleName: string, permissionName: string): Promise<void> {
    await this.db.rows(sql`
      insert into role_permissions (role_id, permission_id)
      select r.id, p.id from roles r, permissions p where r.name = ${roleName} and p.name = ${permissionName}
      on conflict do nothing`);
  }
}
