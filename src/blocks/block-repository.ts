// Queries on the `blocks` table (migration 0025): who blocked whom, since when (CONTRACT §21).
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import type { KeysetPosition } from '../shared/cursor.js';
import type { BlockRelations } from '../read-model/index.js';
import { textArray } from '../db/sql-fragments.js';

export interface BlockRow {
  blocker_id: string;
  blocked_id: string;
  created_at: Date;
}

/** A row of the blocker's list, with the blocked user's name and avatar. */
export interface BlockedUserRow {
  blocked_id: string;
  created_at: Date;
  username: string;
  given_name: string;
  family_name: string;
  picture: string | null;
}

export class BlockRepository extends Repository {
  /** Inserts the block; undefined when it already exists. */
  async insert(blockerId: string, blockedId: string): Promise<BlockRow | undefined> {
    const [row] = await this.db.rows<BlockRow>(sql`
      insert into blocks (blocker_id, blocked_id) values (${blockerId}, ${blockedId})
      on conflict (blocker_id, blocked_id) do nothing
      returning blocker_id, blocked_id, created_at`);
    return row;
  }

  async find(blockerId: string, blockedId: string): Promise<BlockRow | undefined> {
    const [row] = await this.db.rows<BlockRow>(sql`
      select blocker_id, blocked_id, created_at from blocks where blocker_id = ${blockerId} and blocked_id = ${blockedId}`);
    return row;
  }

  /** Deletes the block; false when there was none. */
  async delete(blockerId: string, blockedId: string): Promise<boolean> {
    const rows = await this.db.rows<{ blocker_id: string }>(sql`
      delete from blocks where blocker_id = ${blockerId} and blocked_id = ${blockedId} returning blocker_id`);
    return rows.length > 0;
  }

  /** How many users `blockerId` blocks. */
  async countOf(blockerId: string): Promise<number> {
    const [row] = await this.db.rows<{ n: number }>(sql`select count(*)::int as n from blocks where blocker_id = ${blockerId}`);
    return row?.n ?? 0;
  }

  /** Locks the blocker's list for the rest of the transaction (so the count bound holds under concurrent blocks). */
  async lockBlocker(blockerId: string): Promise<void> {
    await this.db.rows(sql`select pg_advisory_xact_lock(hashtextextended(${`blocks:${blockerId}`}, 0))`);
  }

  /** Whether either user blocks the other. */
  async eitherWay(a: string, b: string): Promise<boolean> {
    const rows = await this.db.rows<{ one: number }>(sql`
      select 1 as one from blocks
      where (blocker_id = ${a} and blocked_id = ${b}) or (blocker_id = ${b} and blocked_id = ${a})
      limit 1`);
    return rows.length > 0;
  }

  /** Those of `others` who block `userId` or whom `userId` blocks. */
  async amongEitherWay(userId: string, others: string[]): Promise<Set<string>> {
    if (!others.length) return new Set();
    const list = sql`${textArray(others)}::uuid[]`;
    const rows = await this.db.rows<{ other: string }>(sql`
      select blocked_id as other from blocks where blocker_id = ${userId} and blocked_id = any(${list})
      union
      select blocker_id as other from blocks where blocked_id = ${userId} and blocker_id = any(${list})`);
    return new Set(rows.map((r) => r.other));
  }

  /** Whom the user blocked and who blocked them. */
  async relationsOf(userId: string): Promise<BlockRelations> {
    const rows = await this.db.rows<{ other: string; outgoing: boolean }>(sql`
      select blocked_id as other, true as outgoing from blocks where blocker_id = ${userId}
      union all
      select blocker_id as other, false as outgoing from blocks where blocked_id = ${userId}`);
    return {
      blocked: rows.filter((r) => r.outgoing).map((r) => r.other),
      blockedBy: rows.filter((r) => !r.outgoing).map((r) => r.other),
    };
  }

  /** The blocker's list, newest first; `limit + 1` rows to know whether more follow. */
  page(blockerId: string, after: KeysetPosition | null, limit: number): Promise<BlockedUserRow[]> {
    const cut = after ? sql`and (b.created_at, b.blocked_id) < (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)` : sql``;
    return this.db.rows<BlockedUserRow>(sql`
      select b.blocked_id, b.created_at, u.username, u.given_name, u.family_name, u.picture
      from blocks b join users u on u.id = b.blocked_id
      where b.blocker_id = ${blockerId} ${cut}
      order by b.created_at desc, b.blocked_id desc
      limit ${limit + 1}`);
  }

  /** Every block naming the user, on either side (their account is erased: CONTRACT §22). */
  async deleteAllOf(userId: string): Promise<number> {
    const rows = await this.db.rows<{ blocker_id: string }>(sql`
      delete from blocks where blocker_id = ${userId} or blocked_id = ${userId} returning blocker_id`);
    return rows.length;
  }
}
