// The user profile of SPEC 2.4: one's own (every field) or another user's (public fields and
// profile statistics; the phone number and email of others are never shown: see docs/accounts.md).
// Both are answered from the read model when it has them (docs/read-model.md): one's own as a
// whole; another user's as the two answers everyone gets (following them or not), picked by the
// viewer's own list of whom they follow.
import type { AppContext } from '../context.js';
import { badRequest, notFound } from '../shared/errors.js';
import { mediaUrl } from '../shared/media-url.js';
import { fullName } from '../shared/person.js';
import type { ProfileChanges, UserRepository } from './user-repository.js';
import { JsonText } from '../shared/json-text.js';
import type { ReadCache } from '../read-model/index.js';
import type { CachedFollowings, CachedProfile, CachedPublicProfile } from '../read-model/index.js';
import { SharedReads } from '../read-model/index.js';
import type { UserProfile } from './response-schemas.js';

/** Whom a viewer follows, newest first, at most `limit` of them (src/follows/ keeps the follows). */
export interface FollowingLookup {
  followingIds(followerId: string, limit: number): Promise<string[]>;
}

/** Whom a viewer follows is kept only up to this many; a viewer who follows more is asked of the database each time. */
const MAX_KEPT_FOLLOWINGS = 5_000;

/** The read model's caches the profiles are answered from. */
export interface ProfileCaches {
  /** Users' own profiles, dropped by user.changed and follow events (src/read-model/). */
  own: ReadCache<string, CachedProfile>;
  /** Other users' profiles by the user seen, dropped by the same events. */
  public: ReadCache<string, CachedPublicProfile>;
  /** Whom each viewer follows, dropped by their follow events and user.changed. */
  followings: ReadCache<string, CachedFollowings>;
}

export class ProfileService {
  private readonly publicReads = new SharedReads<CachedPublicProfile>();
  private readonly followingReads = new SharedReads<ReadonlySet<string> | null>();

  constructor(
    private readonly app: AppContext,
    private readonly users: UserRepository,
    private readonly follows: FollowingLookup,
    private readonly caches: ProfileCaches,
  ) {}

  /** getProfile's answer serialised, from the read model when it has it. */
  async profileAnswer(callerId: string, userId?: string): Promise<UserProfile | JsonText> {
    if (userId !== undefined && userId !== callerId) return this.otherProfileAnswer(callerId, userId);
    const cached = this.caches.own.get(callerId);
    if (cached) return cached.answer;
    const epoch = this.caches.own.epoch();
    const answer = JsonText.of(await this.getProfile(callerId));
    this.caches.own.set(callerId, { answer }, epoch);
    return answer;
  }

  /** Another user's profile as the caller sees it: the user's public answer, following them or not. */
  private async otherProfileAnswer(callerId: string, userId: string): Promise<UserProfile | JsonText> {
    // Nothing kept (READ_CACHE=off, or this node may miss changes): one query, as it always was.
    if (!this.caches.public.active()) return this.getProfile(callerId, userId);
    const [followed, answers] = await Promise.all([this.followedBy(callerId), this.publicAnswers(userId)]);
    if (!followed) return this.getProfile(callerId, userId);
    return followed.has(userId) ? answers.following : answers.notFollowing;
  }

  /** The user's two public answers; 404 for no such user (or a deleted one), which is not kept. */
  private async publicAnswers(userId: string): Promise<CachedPublicProfile> {
    const cached = this.caches.public.get(userId);
    if (cached) return cached;
    const epoch = this.caches.public.epoch();
    return this.publicReads.read(userId, epoch, async () => {
      const seen = await this.getProfile(null, userId);
      const answers = { following: JsonText.of({ ...seen, is_following: true }), notFollowing: JsonText.of({ ...seen, is_following: false }) };
      this.caches.public.set(userId, answers, epoch);
      return answers;
    });
  }

  /** Whom the viewer follows, or null when they follow more than is kept. */
  private async followedBy(viewerId: string): Promise<ReadonlySet<string> | null> {
    const cached = this.caches.followings.get(viewerId);
    if (cached) return cached.ids;
    const epoch = this.caches.followings.epoch();
    return this.followingReads.read(viewerId, epoch, async () => {
      const ids = await this.follows.followingIds(viewerId, MAX_KEPT_FOLLOWINGS + 1);
      if (ids.length > MAX_KEPT_FOLLOWINGS) return null;
      const kept = { ids: new Set(ids) };
      this.caches.followings.set(viewerId, kept, epoch);
      return kept.ids;
    });
  }

  /**
   * The caller's own profile, or (with `userId`) another user's as the caller may see it; with no
   * caller (null), another user's as anyone sees it, not following them.
   */
  async getProfile(callerId: string | null, userId?: string): Promise<UserProfile> {
    const targetId = userId ?? callerId;
    if (targetId === null) throw new Error('getProfile needs a caller or a user');
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
