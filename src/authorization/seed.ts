// Start-up seeding: the permission catalogue, the three roles and their grants (only added,
// never removed), and the first administrator of CONTRACT §4. Idempotent; runs under the
// start-up advisory lock so simultaneous nodes do it once.
import bcrypt from 'bcryptjs';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import { newId } from '../shared/ids.js';
import { PERMISSIONS, SEEDED_ROLES, ADMIN_ROLE } from './catalogue.js';
import { normalisePhoneNumber } from '../auth/phone.js';

export async function seedRolesAndPermissions(app: AppContext): Promise<void> {
  for (const [name, description] of Object.entries(PERMISSIONS)) {
    await app.database.rows(
      sql`insert into permissions (id, name, description) values (${newId()}, ${name}, ${description}) on conflict (name) do nothing`,
    );
  }
  for (const [role, def] of Object.entries(SEEDED_ROLES)) {
    await app.database.rows(
      sql`insert into roles (id, name, description) values (${newId()}, ${role}, ${def.description}) on conflict (name) do nothing`,
    );
    for (const permission of def.permissions) {
      await app.database.rows(sql`
        insert into role_permissions (role_id, permission_id)
        select r.id, p.id from roles r, permissions p where r.name = ${role} and p.name = ${permission}
        on conflict do nothing`);
    }
  }
}

export async function ensureAdministrator(app: AppContext): Promise<void> {
  const { ADMIN_PHONE_NUMBER, ADMIN_PASSWORD } = app.config;
  if (!ADMIN_PHONE_NUMBER || !ADMIN_PASSWORD) return;
  const phone = normalisePhoneNumber(ADMIN_PHONE_NUMBER, app.config.DEFAULT_PHONE_REGION);
  const [existing] = await app.database.rows<{ id: string }>(sql`select id from users where phone_number = ${phone}`);
  if (existing) {
    // Make sure it is a verified admin; the password set by the operator stays authoritative.
    await app.database.rows(sql`
      update users set role = ${ADMIN_ROLE}, phone_verified = true, updated_at = now() where id = ${existing.id}`);
    return;
  }
  const passwordHash = await bcrypt.hash(ADMIN_PASSWORD, app.config.BCRYPT_ROUNDS);
  await app.database.rows(sql`
    insert into users (id, username, password_hash, phone_number, phone_verified, given_name, family_name, role)
    values (${newId()}, 'admin', ${passwordHash}, ${phone}, true, 'Admin', '', ${ADMIN_ROLE})
    on conflict do nothing`);
  app.log.info('administrator account created');
}
