// The queries behind roles and permissions (tables of migration 0001: roles, permissions,
// role_permissions). Rows come back in the SPEC §2.7 shapes.
import { sql } from 'drizzle-orm';
import type { Database, DatabaseHandle } from '../db/client.js';
import { newId } from '../shared/ids.js';
import type { PermissionView, RoleView } from './schemas.js';

const iso = (value: unknown): string => (value instanceof Date ? value : new Date(String(value))).toISOString();

interface PermissionRow {
  id: string;
  name: string;
  description: string;
  is_active: boolean;
  created_at: Date | string;
}

interface RoleRow extends PermissionRow {
  permission_ids: string[] | null;
  permission_names: string[] | null;
}

const toPermission = (r: PermissionRow): PermissionView => ({
  _id: r.id,
  name: r.name,
  description: r.description,
  is_active: r.is_active,
  created_at: iso(r.created_at),
});

const toRole = (r: RoleRow): RoleView => ({
  _id: r.id,
  name: r.name,
  description: r.description,
  permission_ids: r.permission_ids ?? [],
  permission_names: r.permission_names ?? [],
  is_active: r.is_active,
  created_at: iso(r.created_at),
});

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];
const txRows = async <T>(tx: Tx, query: ReturnType<typeof sql>): Promise<T[]> =>
  ((await tx.execute(query)) as unknown as { rows: T[] }).rows;

export class RolesRepository {
  constructor(private readonly database: DatabaseHandle) {}

  async allPermissions(): Promise<PermissionView[]> {
    const rows = await this.database.rows<PermissionRow>(sql`
      select id, name, description, is_active, created_at from permissions order by name`);
    return rows.map(toPermission);
  }

  /** Active permissions granted to any of the given active roles (what those roles can do). */
  async permissionsOfRoles(roleNames: string[]): Promise<PermissionView[]> {
    if (roleNames.length === 0) return [];
    const names = sql.join(roleNames.map((n) => sql`${n}`), sql`, `);
    const rows = await this.database.rows<PermissionRow>(sql`
      select distinct p.id, p.name, p.description, p.is_active, p.created_at
      from permissions p
      join role_permissions rp on rp.permission_id = p.id
      join roles r on r.id = rp.role_id
      where r.name in (${names}) and r.is_active and p.is_active
      order by p.name`);
    return rows.map(toPermission);
  }

  /** The ids among `ids` (valid uuids) that name an existing permission. */
  async existingPermissionIds(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const list = sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `);
    const rows = await this.database.rows<{ id: string }>(sql`select id from permissions where id in (${list})`);
    return new Set(rows.map((r) => r.id.toLowerCase()));
  }

  /** Inserts a permission; a duplicate name surfaces as a unique violation. */
  async insertPermission(name: string, description: string): Promise<PermissionView> {
    const [row] = await this.database.rows<PermissionRow>(sql`
      insert into permissions (id, name, description) values (${newId()}, ${name}, ${description})
      returning id, name, description, is_active, created_at`);
    return toPermission(row);
  }

  private roleSelect() {
    return sql`
      select r.id, r.name, r.description, r.is_active, r.created_at,
             coalesce(array_agg(p.id::text order by p.name) filter (where p.id is not null), '{}') as permission_ids,
             coalesce(array_agg(p.name order by p.name) filter (where p.id is not null), '{}') as permission_names
      from roles r
      left join role_permissions rp on rp.role_id = r.id
      left join permissions p on p.id = rp.permission_id`;
  }

  async allRoles(): Promise<RoleView[]> {
    const rows = await this.database.rows<RoleRow>(sql`${this.roleSelect()} group by r.id order by r.created_at, r.name`);
    return rows.map(toRole);
  }

  async roleById(id: string): Promise<RoleView | null> {
    const [row] = await this.database.rows<RoleRow>(sql`${this.roleSelect()} where r.id = ${id} group by r.id`);
    return row ? toRole(row) : null;
  }

  /** Inserts a role and its grants in one transaction; a duplicate name surfaces as a unique violation. */
  async insertRole(name: string, description: string, permissionIds: string[]): Promise<string> {
    const id = newId();
    await this.database.db.transaction(async (tx) => {
      await txRows(tx, sql`insert into roles (id, name, description) values (${id}, ${name}, ${description})`);
      for (const permissionId of permissionIds) {
        await txRows(tx, sql`
          insert into role_permissions (role_id, permission_id) values (${id}, ${permissionId}::uuid)
          on conflict do nothing`);
      }
    });
    return id;
  }
}
