// Queries on the `follows` table (migration 0001): who follows whom, since when.
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../db/client.js';

export interface FollowRow {
  follower_id: string;
  following_id: string;
  created_at: Date;
}

export interface FollowCounts {
  followers: number;
  following: number;
}

export class FollowRepository {
  constructor(private readonly database: DatabaseHandle) {}

  /** Inserts the follow; null when it already exists. */
  async insert(followerId: string, followingId: string): Promise<FollowRow | null> {
    const [row] = await this.database.rows<FollowRow>(sql`
      insert into follows (follower_id, following_id) values (${followerId}, ${followingId})
      on conflict (follower_id, following_id) do nothing
      returning follower_id, following_id, created_at`);
    return row ?? null;
  }

  /** Deletes the follow; false when there was none. */
  async delete(followerId: string, followingId: string): Promise<boolean> {
    const rows = await this.database.rows<{ follower_id: string }>(sql`
      delete from follows where follower_id = ${followerId} and following_id = ${followingId} returning follower_id`);
    return rows.length > 0;
  }

  async exists(followerId: string, followingId: string): Promise<boolean> {
    const rows = await this.database.rows<{ one: number }>(sql`
      select 1 as one from follows where follower_id = ${followerId} and following_id = ${followingId}`);
    return rows.length > 0;
  }

  async counts(userId: string): Promise<FollowCounts> {
    const [row] = await this.database.rows<{ followers: number; following: number }>(sql`
      select (select count(*) from follows where following_id = ${userId})::int as followers,
             (select count(*) from follows where follower_id = ${userId})::int as following`);
    return { followers: Number(row.followers), following: Number(row.following) };
  }
}
