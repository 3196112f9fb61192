// Following a user: one record per (follower, followed) pair, never oneself. A new follow is
// announced as `follow.created` (the followed user's notification) once it is stored.
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import { badRequest, notFound } from '../shared/errors.js';
import { mediaUrl } from '../shared/media-url.js';
import { fullName } from '../auth/accounts.js';
import { FollowRepository } from './repository.js';

/** The follow record of SPEC 2.10. */
export interface FollowRecord {
  follower_id: string;
  following_id: string;
  created_at: string;
}

export class FollowService {
  readonly repository: FollowRepository;

  constructor(private readonly app: AppContext) {
    this.repository = new FollowRepository(app.database);
  }

  async follow(followerId: string, followingId: string): Promise<FollowRecord> {
    if (followerId === followingId) {
      throw badRequest('follow.error.self_follow', 'You cannot follow yourself', { field: 'userId', constraint: 'another user' });
    }
    const [follower] = await this.app.database.rows<{ given_name: string; family_name: string; picture: string | null }>(sql`
      select given_name, family_name, picture from users where id = ${followerId}`);
    await this.requireUser(followingId);
    let row;
    try {
      row = await this.repository.insert(followerId, followingId);
    } catch (err) {
      // The followed user was deleted between the check and the insert.
      if ((err as { code?: string; cause?: { code?: string } }).code === '23503' || (err as { cause?: { code?: string } }).cause?.code === '23503') {
        throw this.userNotFound();
      }
      throw err;
    }
    if (!row) {
      throw badRequest('follow.error.already_following', 'You already follow this user', { field: 'userId', constraint: 'not followed yet' });
    }
    const record: FollowRecord = {
      follower_id: row.follower_id,
      following_id: row.following_id,
      created_at: new Date(row.created_at).toISOString(),
    };
    this.app.events.publish('follow.created', {
      ...record,
      follower: {
        name: follower ? fullName(follower.given_name, follower.family_name) : '',
        avatar: follower?.picture ? mediaUrl(this.app.config, follower.picture) : null,
      },
    });
    return record;
  }

  async unfollow(followerId: string, followingId: string): Promise<void> {
    if (!(await this.repository.delete(followerId, followingId))) {
      throw notFound('follow.error.not_following', 'You do not follow this user', { field: 'userId', constraint: 'followed user' });
    }
  }

  private async requireUser(userId: string): Promise<void> {
    const rows = await this.app.database.rows<{ id: string }>(sql`select id from users where id = ${userId}`);
    if (!rows.length) throw this.userNotFound();
  }

  private userNotFound() {
    return notFound('user.error.not_found', 'No user with this id', { field: 'userId', constraint: 'existing user' });
  }
}
