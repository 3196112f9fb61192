// The idempotency_keys table: one row per (user, Idempotency-Key), holding the request's hash and,
// once served, its answer.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { jsonb } from '../db/sql-fragments.js';

interface IdempotencyKeyRow {
  request_hash: string;
  response_status: number | null;
  response_body: unknown;
}

export class IdempotencyRepository extends Repository {
  /** Inserts the key; false when it already exists (a concurrent insert waits for the first to end). */
  async insert(userId: string, key: string, scope: string, requestHash: string): Promise<boolean> {
    const inserted = await this.db.rows<{ key: string }>(
      sql`insert into idempotency_keys (user_id, key, scope, request_hash)
          values (${userId}, ${key}, ${scope}, ${requestHash})
          on conflict (user_id, key) do nothing
          returning key`,
    );
    return inserted.length > 0;
  }

  async find(userId: string, key: string): Promise<IdempotencyKeyRow | undefined> {
    const [row] = await this.db.rows<IdempotencyKeyRow>(
      sql`select request_hash, response_status, response_body from idempotency_keys
          where user_id = ${userId} and key = ${key}`,
    );
    return row;
  }

  async storeResponse(userId: string, key: string, status: number, body: unknown): Promise<void> {
    await this.db.rows(
      sql`update idempotency_keys set response_status = ${status}, response_body = ${jsonb(body)}
          where user_id = ${userId} and key = ${key}`,
    );
  }

  /** Erasure (CONTRACT §22): the user's stored answers to repeated requests (they may repeat personal data). */
  async deleteAllOf(userId: string): Promise<void> {
    await this.db.rows(sql`delete from idempotency_keys where user_id = ${userId}`);
  }
}
