// The user profile of SPEC 2.4: one's own (every field) or another user's (public fields and
// profile statistics; the phone number and email of others are never shown: see docs/accounts.md).
import type { AppContext } from '../context.js';
import { badRequest, notFound } from '../shared/errors.js';
import { mediaUrl } from '../shared/media-url.js';
import { fullName } from './accounts.js';
import type { ProfileChanges, UserRepository } from './user-repository.js';
import { JsonText } from '../shared/json-text.js';
import type { ReadCache } from '../read-model/read-cache.js';
import type { CachedProfile } from '../read-model/read-model.js';
import type { UserProfile } from './response-schemas.js';

export class ProfileService {
  constructor(
    private readonly app: AppContext,
    private readonly users: UserRepository,
    /** Users' own profiles, dropped by user.changed and follow events (src/read-model/). */
    private readonly ownProfiles: ReadCache<string, CachedProfile>,
  ) {}

  /** getProfile's answer serialised; one's own profile from the read model when it has it. */
  async profileAnswer(callerId: string, userId?: string): Promise<UserProfile | JsonText> {
    if (userId !== undefined && userId !== callerId) return this.getProfile(callerId, userId);
    const cached = this.ownProfiles.get(callerId);
    if (cached) return cached.answer;
    const epoch = this.ownProfiles.epoch();
    const answer = JsonText.of(await this.getProfile(callerId));
    this.ownProfiles.set(callerId, { answer }, epoch);
    return answer;
  }

  /** The caller's own profile, or (with `userId`) another user's as the caller may see it. */
  async getProfile(callerId: string, userId?: string): Promise<UserProfile> {
    const targetId = userId ?? callerId;
    const user = await this.users.findProfile(targetId, callerId);
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
      roles: user.roles,
      follower_number: user.followers,
      following_number: user.following,
      is_following: !self && user.viewer_follows,
    };
  }

  /** Changes the given fields; a changed email is unverified until confirmed. */
  async updateProfile(userId: string, update: ProfileChanges): Promise<void> {
    if (Object.values(update).every((v) => v === undefined)) {
      throw badRequest('validation.error.invalid_body', 'Nothing to update', { field: 'body', constraint: 'at least one field' });
    }
    if (!(await this.users.updateProfile(userId, update))) throw notFound('user.error.not_found', 'User not found');
    await this.app.events.publishAndWait('user.changed', { userId });
  }
}
