// The user profile of SPEC 2.4: one's own (every field) or another user's (public fields and
// profile statistics; the phone number and email of others are never shown: see docs/accounts.md).
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import { badRequest, notFound } from '../shared/errors.js';
import { mediaUrl } from '../shared/media-url.js';
import { fullName } from './accounts.js';

export interface UserProfile {
  sub: string;
  username: string;
  email: string | null;
  email_verified: boolean;
  phone_number: string | null;
  phone_number_verified: boolean;
  name: string;
  given_name: string;
  family_name: string;
  picture: string | null;
  role: string;
  follower_number: number;
  following_number: number;
  is_following: boolean;
}

export interface ProfileUpdate {
  given_name?: string;
  family_name?: string;
  email?: string | null;
}

interface UserRow {
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
}

export class ProfileService {
  constructor(private readonly app: AppContext) {}

  /** The caller's own profile, or (with `userId`) another user's as the caller may see it. */
  async getProfile(callerId: string, userId?: string): Promise<UserProfile> {
    const targetId = userId ?? callerId;
    // One round trip: the user, their follow counts and whether the caller follows them.
    const [user] = await this.app.database.rows<UserRow & { followers: number; following: number; is_following: boolean }>(sql`
      select id, username, email, email_verified, phone_number, phone_verified, given_name, family_name, picture, role,
             (select count(*) from follows where following_id = u.id)::int as followers,
             (select count(*) from follows where follower_id = u.id)::int as following,
             exists (select 1 from follows where follower_id = ${callerId} and following_id = u.id) as is_following
      from users u where id = ${targetId}`);
    if (!user) throw notFound('user.error.not_found', 'No user with this id', { field: 'user_id', constraint: 'existing user' });
    const self = targetId === callerId;
    return {
      sub: user.id,
      username: user.username,
      email: self ? user.email : null,
      email_verified: user.email_verified,
      phone_number: self ? user.phone_number : null,
      phone_number_verified: user.phone_verified,
      name: fullName(user.given_name, user.family_name),
      given_name: user.given_name,
      family_name: user.family_name,
      picture: user.picture ? mediaUrl(this.app.config, user.picture) : null,
      role: user.role,
      follower_number: Number(user.followers),
      following_number: Number(user.following),
      is_following: !self && user.is_following,
    };
  }

  /** Changes the given fields; a changed email is unverified until confirmed. */
  async updateProfile(userId: string, update: ProfileUpdate): Promise<void> {
    const sets = [];
    if (update.given_name !== undefined) sets.push(sql`given_name = ${update.given_name}`);
    if (update.family_name !== undefined) sets.push(sql`family_name = ${update.family_name}`);
    if (update.email !== undefined) {
      sets.push(sql`email_verified = (email_verified and email is not distinct from ${update.email}::text)`);
      sets.push(sql`email = ${update.email}::text`);
    }
    if (!sets.length) throw badRequest('validation.error.invalid_body', 'Nothing to update', { field: 'body', constraint: 'at least one field' });
    sets.push(sql`updated_at = now()`);
    const rows = await this.app.database.rows<{ id: string }>(sql`
      update users set ${sql.join(sets, sql`, `)} where id = ${userId} returning id`);
    if (!rows.length) throw notFound('user.error.not_found', 'User not found');
  }
}
