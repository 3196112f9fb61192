// Start-up seeding: the permission catalogue, the seeded roles and their grants (only added,
// never removed), and the first administrator of CONTRACT §4. Idempotent; runs under the
// start-up advisory lock so simultaneous nodes do it once.
import bcrypt from 'bcryptjs';
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { DatabaseHandle } from '../db/client.js';
import { ConfigError } from '../config.js';
import { newId } from '../shared/ids.js';
import { PERMISSIONS, SEEDED_ROLES, ADMIN_ROLE } from './catalogue.js';
import { normalisePhoneNumber } from '../auth/index.js';
import type { UserRepository } from '../auth/index.js';
import type { RolesRepository } from './roles-repository.js';

/**
 * Adds what the catalogue has and the database lacks, in one transaction. A seeded role's grant
 * is added only when the role or the permission is new here, so a grant an administrator took
 * away (PUT /authorization/api/v1/roles/{id}) stays away across restarts, while a permission
 * added to the catalogue by a new version reaches the seeded roles that list it.
 */
export async function seedRolesAndPermissions(database: DatabaseHandle, roleRepository: RolesRepository): Promise<void> {
  await database.transaction(async (tx) => {
    const roles = roleRepository.in(tx);
    const newPermissions = new Set<string>();
    for (const [name, description] of Object.entries(PERMISSIONS)) {
      if (await roles.insertPermissionIfMissing(name, description)) newPermissions.add(name);
    }
    for (const [role, def] of Object.entries(SEEDED_ROLES)) {
      const newRole = await roles.insertRoleIfMissing(role, def.description);
      for (const permission of def.permissions) {
        if (newRole || newPermissions.has(permission)) await roles.grantByName(role, permission);
      }
    }
  });
}

/**
 * Makes sure the administrator of ADMIN_PHONE_NUMBER exists. An account someone registered with
 * that number is never promoted (whoever registered it would own the admin role with their own
 * password): start-up stops and the operator resolves it. An existing admin is left as it is, so a
 * password changed through the API is not reset at every start.
 */
export async function ensureAdministrator(app: AppContext, users: UserRepository): Promise<void> {
  const { ADMIN_PHONE_NUMBER, ADMIN_PASSWORD } = app.config;
  if (!ADMIN_PHONE_NUMBER || !ADMIN_PASSWORD) return;
  const phone = normalisePhoneNumber(ADMIN_PHONE_NUMBER, app.config.DEFAULT_PHONE_REGION);
  const existingRole = await users.findRoleByPhone(phone);
  if (existingRole !== undefined) {
    if (existingRole === ADMIN_ROLE) return;
    throw new ConfigError(
      'invalid environment variable ADMIN_PHONE_NUMBER: the number belongs to an account that is not an administrator; ' +
        'it is not promoted (choose another number, or remove or promote that account yourself)',
    );
  }
  const username = await freeAdministratorUsername(users);
  const passwordHash = await bcrypt.hash(ADMIN_PASSWORD, app.config.BCRYPT_ROUNDS);
  // The operator chose the number, so it counts as verified from the start.
  await users.insert({ id: newId(), username, passwordHash, phoneNumber: phone, phoneVerified: true, givenName: 'Admin', familyName: '', role: ADMIN_ROLE });
  app.log.info({ username }, 'administrator account created');
}

/** `admin`, or when someone registered that name, `admin_` and a random suffix. */
async function freeAdministratorUsername(users: UserRepository): Promise<string> {
  for (const candidate of ['admin', ...Array.from({ length: 5 }, () => `admin_${randomBytes(3).toString('hex')}`)]) {
    if (!(await users.usernameTaken(candidate))) return candidate;
  }
  throw new Error('no free username for the administrator account');
}
