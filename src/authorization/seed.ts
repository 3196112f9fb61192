// Start-up seeding: the permission catalogue, the three roles and their grants (only added,
// never removed), and the first administrator of CONTRACT §4. Idempotent; runs under the
// start-up advisory lock so simultaneous nodes do it once.
import bcrypt from 'bcryptjs';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import { ConfigError } from '../config.js';
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

/**
 * Makes sure the administrator of ADMIN_PHONE_NUMBER exists. An account someone registered with
 * that number is never promoted (whoever registered it would own the admin role with their own
 * password): start-up stops and the operator resolves it. An existing admin is left as it is, so a
 * password changed through the API is not reset at every start.
 */
export async function ensureAdministrator(app: AppContext): Promise<void> {
  const { ADMIN_PHONE_NUMBER, ADMIN_PASSWORD } = app.config;
  if (!ADMIN_PHONE_NUMBER || !ADMIN_PASSWORD) return;
  const phone = normalisePhoneNumber(ADMIN_PHONE_NUMBER, app.config.DEFAULT_PHONE_REGION);
  const [existing] = await app.database.rows<{ id: string; role: string }>(sql`select id, role from users where phone_number = ${phone}`);
  if (existing) {
    if (existing.role === ADMIN_ROLE) return;
    throw new ConfigError(
      'invalid environment variable ADMIN_PHONE_NUMBER: the number belongs to an account that is not an administrator; ' +
        'it is not promoted (choose another number, or remove or promote that account yourself)',
    );
  }
  const username = await freeAdministratorUsername(app);
  const passwordHash = await bcrypt.hash(ADMIN_PASSWORD, app.config.BCRYPT_ROUNDS);
  await app.database.rows(sql`
    insert into users (id, username, password_hash, phone_number, phone_verified, given_name, family_name, role)
    values (${newId()}, ${username}, ${passwordHash}, ${phone}, true, 'Admin', '', ${ADMIN_ROLE})`);
  app.log.info({ username }, 'administrator account created');
}

/** `admin`, or when someone registered that name, `admin_` and a random suffix. */
async function freeAdministratorUsername(app: AppContext): Promise<string> {
  for (const candidate of ['admin', ...Array.from({ length: 5 }, () => `admin_${randomBytes(3).toString('hex')}`)]) {
    const [taken] = await app.database.rows<{ id: string }>(sql`select id from users where lower(username) = lower(${candidate})`);
    if (!taken) return candidate;
  }
  throw new Error('no free username for the administrator account');
}
