// Following a user: one record per (follower, followed) pair, never oneself. A new follow is
// announced as `follow.created` (the followed user's notification) once it is stored, and is
// stored with a `follow` notification in the same transaction (CONTRACT §17).
import type { AppContext } from '../context.js';
import { badRequest, isForeignKeyViolation, notFound } from '../shared/errors.js';
import { mediaUrl } from '../shared/media-url.js';
import { fullName } from '../shared/person.js';
import { requireSameIdentity, type Caller } from '../auth/index.js';
import type { UserRepository } from '../auth/index.js';
import type { NotificationService } from '../notifications/index.js';
import type { FollowRepository } from './follow-repository.js';
import type { FollowRecord } from '../auth/index.js';
import type { BlockService } from '../blocks/index.js';

const userNotFound = () => notFound('user.error.not_found', 'No user with this id', { field: 'userId', constraint: 'existing user' });

export class FollowService {
  constructor(
    private readonly app: AppContext,
    private readonly follows: FollowRepository,
    private readonly users: UserRepository,
    private readonly notifications: NotificationService,
    private readonly blocks: BlockService,
  ) {}

  /** The caller follows `followingId`; `claimedUserId` (X-User-ID) must be the caller's own id. */
  async follow(caller: Caller, claimedUserId: string, followingId: string): Promise<FollowRecord> {
    requireSameIdentity(caller, { userId: claimedUserId });
    const followerId = caller.userId;
    if (followerId === followingId) {
      throw badRequest('follow.error.self_follow', 'You cannot follow yourself', { field: 'userId', constraint: 'another user' });
    }
    const follower = await this.users.findBadge(followerId);
    if (!(await this.users.exists(followingId))) throw userNotFound();
    // Either way (CONTRACT §21); the one blocked is refused like the blocker, and learns no more
    // than that following is not possible.
    if (await this.blocks.eitherWay(followerId, followingId)) {
      throw badRequest('follows.error.blocked', 'You cannot follow this user', { field: 'userId', constraint: 'a user not blocked either way' });
    }
    let row;
    try {
      // The follow and its `follow` notification are stored together or not at all.
      row = await this.app.database.transaction(async (tx) => {
        const inserted = await this.follows.in(tx).insert(followerId, followingId);
        if (inserted) {
          await this.notifications.notify(tx, {
            userId: followingId,
            type: 'follow',
            actorId: followerId,
            subject: { type: 'user', id: followerId },
          });
        }
        return inserted;
      });
    } catch (err) {
      // The followed user was deleted between the check and the insert.
      if (isForeignKeyViolation(err)) throw userNotFound();
      throw err;
    }
    if (!row) {
      throw badRequest('follow.error.already_following', 'You already follow this user', { field: 'userId', constraint: 'not followed yet' });
    }
    const record: FollowRecord = {
      follower_id: row.follower_id,
      following_id: row.following_id,
      created_at: row.created_at.toISOString(),
    };
    this.notifications.deliverSoon();
    await this.app.events.publishAndWait('follow.created', {
      ...record,
      follower: {
        name: follower ? fullName(follower.given_name, follower.family_name) : '',
        avatar: follower?.picture ? mediaUrl(this.app.config, follower.picture) : null,
      },
    });
    return record;
  }

  /** The caller stops following `followingId`; X-User-ID is optional here, but when sent it must be the caller's. */
  async unfollow(caller: Caller, claimedUserId: string | undefined, followingId: string): Promise<void> {
    if (claimedUserId !== undefined) requireSameIdentity(caller, { userId: claimedUserId });
    if (!(await this.follows.delete(caller.userId, followingId))) {
      throw notFound('follow.error.not_following', 'You do not follow this user', { field: 'userId', constraint: 'followed user' });
    }
    await this.app.events.publishAndWait('follow.deleted', { follower_id: caller.userId, following_id: followingId });
  }
}
