// Queries on the `follows` table (migration 0001): who follows whom, since when.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';

interface FollowRow {
  follower_id: string;
  following_id: string;
  created_at: Date;
}

export class FollowRepository extends Repository {
  /** Inserts the follow; undefined when it already exists. */
  async insert(followerId: string, followingId: string): Promise<FollowRow | undefined> {
    const [row] = await this.db.rows<FollowRow>(sql`
      insert into follows (follower_id, following_id) values (${followerId}, ${followingId})
      on conflict (follower_id, following_id) do nothing
      returning follower_id, following_id, created_at`);
    return row;
  }

  /** Whom `followerId` follows, most recently followed first, at most `limit`. */
  async followingIds(followerId: string, limit: number): Promise<string[]> {
    const rows = await this.db.rows<{ following_id: string }>(sql`
      select following_id from follows where follower_id = ${followerId} order by created_at desc limit ${limit}`);
    return rows.map((r) => r.following_id);
  }

  /** Deletes the follow; false when there was none. */
  async delete(followerId: string, followingId: string): Promise<boolean> {
    const rows = await this.db.rows<{ follower_id: string }>(sql`
      delete from follows where follower_id = ${followerId} and following_id = ${followingId} returning follower_id`);
    return rows.length > 0;
  }

  /** Erasure (CONTRACT §22): every follow to or from the user; answers the other users (their counts changed). */
  async deleteAllOf(userId: string): Promise<string[]> {
    const rows = await this.db.rows<{ other: string }>(sql`
      delete from follows where follower_id = ${userId} or following_id = ${userId}
      returning case when follower_id = ${userId} then following_id else follower_id end as other`);
    return [...new Set(rows.map((r) => r.other))];
  }
}
