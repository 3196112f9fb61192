// The `users` table (migration 0001) and the roles each user holds (`user_roles`, migration
// 0022; users.role is the primary one of them, written with the set): their one owner. Accounts, profiles, avatars, follows,
// two-factor, settings, statistics, chat and the start-up seeding read and write users through it.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { sqlList } from '../db/sql-fragments.js';

interface NewUser {
  id: string;
  username: string;
  passwordHash: string;
  phoneNumber: string;
  givenName: string;
  familyName: string;
  role: string;
  /** True only where the number was proven some other way (the operator's administrator). */
  phoneVerified?: boolean;
}

/** What login checks and answers. */
interface LoginUserRow {
  id: string;
  username: string;
  password_hash: string;
  phone_verified: boolean;
  given_name: string;
  family_name: string;
  role: string;
  two_factor_enabled: boolean;
  /** A moderator suspended the account (CONTRACT §21). */
  suspended: boolean;
}

/** The fields a profile shows, with the user's follow counts as seen by one viewer. */
interface ProfileUserRow {
  id: string;
  username: string;
  email: string | null;
  email_verified: boolean;
  phone_number: string;
  phone_verified: boolean;
  given_name: string;
  family_name: string;
  picture: string | null;
  role: string;
  /** Every role the user holds, in the order assigned. */
  roles: string[];
  followers: number;
  following: number;
  viewer_follows: boolean;
}

/** How a user appears next to something they did (a follow notification). */
interface UserBadgeRow {
  given_name: string;
  family_name: string;
  picture: string | null;
}

/** What enabling or disabling two-factor checks. */
export interface TwoFactorUserRow {
  username: string;
  phone_number: string;
  password_hash: string;
  two_factor_enabled: boolean;
}

export interface ProfileChanges {
  given_name?: string;
  family_name?: string;
  email?: string | null;
}

export class UserRepository extends Repository {
  /** Throws the driver's unique violation when the username or phone number is taken. */
  async insert(user: NewUser): Promise<void> {
    // The user and their one role, in one statement.
    await this.db.rows(sql`
      with inserted as (
        insert into users (id, username, password_hash, phone_number, phone_verified, given_name, family_name, role)
        values (${user.id}, ${user.username}, ${user.passwordHash}, ${user.phoneNumber}, ${user.phoneVerified ?? false}, ${user.givenName}, ${user.familyName}, ${user.role})
        returning id, role
      )
      insert into user_roles (user_id, role_name, position) select id, role, 0 from inserted`);
  }

  /**
   * The user's role names in the order they were assigned, after locking the user's row; undefined:
   * no such user. `for no key update`: a concurrent insert that references the user (an audit
   * entry naming them as its actor) does not wait for it, so two users changing each other's roles
   * cannot deadlock.
   */
  async lockRoles(id: string): Promise<string[] | undefined> {
    const [row] = await this.db.rows<{ roles: string[] }>(sql`
      select array(select role_name from user_roles where user_id = u.id order by position, role_name) as roles
      from users u where u.id = ${id} for no key update`);
    return row?.roles;
  }

  /**
   * The users holding `roleName`, their rows in user_roles locked (a concurrent change of the
   * same holders waits), so a check that one holder remains stays true until commit.
   */
  async lockHolders(roleName: string): Promise<string[]> {
    const rows = await this.db.rows<{ user_id: string }>(sql`
      select user_id from user_roles where role_name = ${roleName} order by user_id for update`);
    return rows.map((r) => r.user_id);
  }

  /**
   * The holders of `roleName` whose accounts can act: not suspended, not deleted. Read in a
   * statement of its own after lockHolders, so it sees a suspension committed while it waited.
   */
  async activeHolders(roleName: string): Promise<string[]> {
    const rows = await this.db.rows<{ user_id: string }>(sql`
      select r.user_id from user_roles r join users u on u.id = r.user_id
      where r.role_name = ${roleName} and u.deleted_at is null and u.suspended_at is null`);
    return rows.map((r) => r.user_id);
  }

  /** Replaces the user's roles with `roleNames` (in that order) and sets users.role to `primary`. */
  async replaceRoles(id: string, roleNames: string[], primary: string): Promise<void> {
    await this.db.rows(sql`delete from user_roles where user_id = ${id}`);
    const values = sql.join(
      roleNames.map((name, position) => sql`(${id}::uuid, ${name}, ${position}::smallint)`),
      sql`, `,
    );
    await this.db.rows(sql`insert into user_roles (user_id, role_name, position) values ${values}`);
    await this.db.rows(sql`update users set role = ${primary}, updated_at = now() where id = ${id}`);
  }

  /** Which of `ids` name a user. */
  async existingIds(ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await this.db.rows<{ id: string }>(sql`select id from users where id in (${sqlList(ids)}) and deleted_at is null`);
    return new Set(rows.map((r) => r.id));
  }

  async exists(id: string): Promise<boolean> {
    const rows = await this.db.rows<{ id: string }>(sql`select id from users where id = ${id} and deleted_at is null`);
    return rows.length > 0;
  }

  /** Whether the user exists, their phone is verified and they are suspended (CONTRACT §21). */
  async findStanding(
    id: string,
  ): Promise<{ id: string; phone_verified: boolean; suspended: boolean; given_name: string; family_name: string; username: string } | undefined> {
    const [row] = await this.db.rows<{
      id: string;
      phone_verified: boolean;
      suspended: boolean;
      given_name: string;
      family_name: string;
      username: string;
    }>(sql`
      select id, phone_verified, suspended_at is not null as suspended, given_name, family_name, username from users where id = ${id}`);
    return row;
  }

  /** Suspends (a date) or restores (null) the user; false when there is no such user. */
  async setSuspended(id: string, at: Date | null): Promise<boolean> {
    const rows = await this.db.rows(sql`
      update users set suspended_at = ${at ? at.toISOString() : null}::timestamptz, updated_at = now() where id = ${id} returning id`);
    return rows.length > 0;
  }

  async findIdByPhone(phoneNumber: string): Promise<string | undefined> {
    const [row] = await this.db.rows<{ id: string }>(sql`select id from users where phone_number = ${phoneNumber}`);
    return row?.id;
  }

  async findForLogin(phoneNumber: string): Promise<LoginUserRow | undefined> {
    const [row] = await this.db.rows<LoginUserRow>(sql`
      select id, username, password_hash, phone_verified, given_name, family_name, role, two_factor_enabled,
             suspended_at is not null as suspended
      from users where phone_number = ${phoneNumber}`);
    return row;
  }

  /**
   * The user `id` with their follow counts and whether `viewerId` follows them. The counts are
   * the columns a trigger on follows keeps in each follow's transaction (migration 0012), so no
   * profile read counts a growing table; whether the viewer follows is one primary-key probe,
   * read here rather than through FollowRepository to keep the profile, the most requested read
   * of the service (bench/user-me.ts), at one round trip. Without a viewer (null), as the read
   * model keeps other users' profiles, `viewer_follows` is false.
   */
  async findProfile(id: string, viewerId: string | null): Promise<ProfileUserRow | undefined> {
    const [row] = await this.db.rows<ProfileUserRow>(sql`
      select id, username, email, email_verified, phone_number, phone_verified, given_name, family_name, picture, role,
             array(select role_name from user_roles where user_id = u.id order by position, role_name) as roles,
             follower_count as followers, following_count as following,
             exists (select 1 from follows where follower_id = ${viewerId}::uuid and following_id = u.id) as viewer_follows
      from users u where id = ${id} and deleted_at is null`);
    return row;
  }

  async findBadge(id: string): Promise<UserBadgeRow | undefined> {
    const [row] = await this.db.rows<UserBadgeRow>(sql`select given_name, family_name, picture from users where id = ${id}`);
    return row;
  }

  async findPasswordHash(id: string): Promise<string | undefined> {
    const [row] = await this.db.rows<{ password_hash: string }>(sql`select password_hash from users where id = ${id}`);
    return row?.password_hash;
  }

  async markPhoneVerified(id: string): Promise<void> {
    await this.db.rows(sql`update users set phone_verified = true, updated_at = now() where id = ${id}`);
  }

  async setPasswordHash(id: string, passwordHash: string): Promise<void> {
    await this.db.rows(sql`update users set password_hash = ${passwordHash}, updated_at = now() where id = ${id}`);
  }

  /** A reset by SMS code also proves the phone, hence both in one write. */
  async setPasswordHashAndVerifyPhone(id: string, passwordHash: string): Promise<void> {
    await this.db.rows(sql`
      update users set password_hash = ${passwordHash}, phone_verified = true, updated_at = now() where id = ${id}`);
  }

  /**
   * Points the user at a new picture and answers the one it replaces (`{ previous: null }` when
   * there was none), or undefined when there is no such user. FOR UPDATE: a concurrent upload
   * waits and then sees this one's picture as its previous.
   */
  async replacePicture(id: string, picture: string): Promise<{ previous: string | null } | undefined> {
    const [row] = await this.db.rows<{ previous: string | null }>(sql`
      update users set picture = ${picture}, updated_at = now()
      from (select picture from users where id = ${id} for update) as old
      where users.id = ${id}
      returning old.picture as previous`);
    return row;
  }

  /** Applies the given fields (at least one); a changed email loses its verification. False when no such user. */
  async updateProfile(id: string, changes: ProfileChanges): Promise<boolean> {
    const sets = [];
    if (changes.given_name !== undefined) sets.push(sql`given_name = ${changes.given_name}`);
    if (changes.family_name !== undefined) sets.push(sql`family_name = ${changes.family_name}`);
    if (changes.email !== undefined) {
      sets.push(sql`email_verified = (email_verified and email is not distinct from ${changes.email}::text)`);
      sets.push(sql`email = ${changes.email}::text`);
    }
    sets.push(sql`updated_at = now()`);
    const rows = await this.db.rows<{ id: string }>(sql`
      update users set ${sql.join(sets, sql`, `)} where id = ${id} returning id`);
    return rows.length > 0;
  }

  /** What enabling or disabling two-factor checks. */
  async findForTwoFactor(id: string): Promise<TwoFactorUserRow | undefined> {
    const [row] = await this.db.rows<TwoFactorUserRow>(sql`
      select username, phone_number, password_hash, two_factor_enabled from users where id = ${id}`);
    return row;
  }

  async twoFactorEnabled(id: string): Promise<boolean> {
    const [row] = await this.db.rows<{ two_factor_enabled: boolean }>(sql`select two_factor_enabled from users where id = ${id}`);
    return row?.two_factor_enabled ?? false;
  }

  /** Flips the two-factor switch; false when it already had that value (two concurrent enables: one winner). */
  async setTwoFactorEnabled(id: string, enabled: boolean): Promise<boolean> {
    const rows = await this.db.rows<{ id: string }>(sql`
      update users set two_factor_enabled = ${enabled}, updated_at = now()
      where id = ${id} and two_factor_enabled = ${!enabled} returning id`);
    return rows.length > 0;
  }

  async findRoleByPhone(phoneNumber: string): Promise<string | undefined> {
    const [row] = await this.db.rows<{ role: string }>(sql`select role from users where phone_number = ${phoneNumber}`);
    return row?.role;
  }

  /** The ids of the users with these usernames (any case); names nobody has are left out. */
  async idsByUsernames(usernames: string[]): Promise<string[]> {
    if (!usernames.length) return [];
    const lowered = usernames.map((u) => u.toLowerCase());
    const rows = await this.db.rows<{ id: string }>(sql`select id from users where lower(username) in (${sqlList(lowered)})`);
    return rows.map((r) => r.id);
  }

  /** Whether any user has this username, in any case. */
  async usernameTaken(username: string): Promise<boolean> {
    const rows = await this.db.rows<{ id: string }>(sql`select id from users where lower(username) = lower(${username})`);
    return rows.length > 0;
  }

  // Leaving (CONTRACT §22: src/leaving/).

  /** What deleting the account checks: the password, two-factor and whether it is an administrator; none when deleted. */
  async findForDeletion(id: string): Promise<{ password_hash: string; two_factor_enabled: boolean; role: string } | undefined> {
    const [row] = await this.db.rows<{ password_hash: string; two_factor_enabled: boolean; role: string }>(sql`
      select password_hash, two_factor_enabled, role from users where id = ${id} and deleted_at is null`);
    return row;
  }

  /**
   * The active (not deleted) administrators: holders of the admin role (user_roles), locked as
   * lockHolders locks them, so a deletion and a role change take turns.
   */
  async lockActiveAdminIds(): Promise<string[]> {
    const rows = await this.db.rows<{ user_id: string }>(sql`
      select r.user_id from user_roles r join users u on u.id = r.user_id
      where r.role_name = 'admin' and u.deleted_at is null order by r.user_id for update of r`);
    return rows.map((r) => r.user_id);
  }

  /** The phone number of a user not deleted (to drop the one-time codes sent to it). */
  async findLivePhone(id: string): Promise<string | undefined> {
    const [row] = await this.db.rows<{ phone_number: string }>(sql`select phone_number from users where id = ${id} and deleted_at is null`);
    return row?.phone_number;
  }

  /**
   * Marks the user deleted (once; the first time is kept) and erases what is personal in the row:
   * the phone number and username are replaced by values derived from the id (so both are free to
   * register again), the name reads "Deleted user", e-mail, picture, password and two-factor secret
   * go. The row stays: payments and the ledger point at it. Idempotent.
   */
  async anonymise(id: string): Promise<void> {
    const tag = id.replace(/-/g, '');
    await this.db.rows(sql`
      update users set deleted_at = coalesce(deleted_at, now()), username = ${`deleted-${tag}`}, phone_number = ${`deleted:${id}`},
             phone_verified = false, email = null, email_verified = false, given_name = 'Deleted', family_name = 'user', picture = null,
             password_hash = '!', two_factor_enabled = false, two_factor_secret = null, updated_at = now()
      where id = ${id}`);
  }

  /** Whether the user's account was deleted. */
  async isDeleted(id: string): Promise<boolean> {
    const [row] = await this.db.rows<{ deleted: boolean }>(sql`select deleted_at is not null as deleted from users where id = ${id}`);
    return row?.deleted ?? false;
  }
}
