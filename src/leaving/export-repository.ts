// The `data_exports` table (migration 0027), and the reads of an export: everything of one user,
// kind by kind (CONTRACT §22). The reads reach every table that holds a user's records, in one
// place, so "everything of a user" is written down once; they are read-only and select named
// columns (no password hash, no token hash, no two-factor secret).
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';

export interface ExportRow {
  id: string;
  user_id: string;
  status: 'pending' | 'ready' | 'expired';
  requested_at: Date;
  ready_at: Date | null;
  expires_at: Date | null;
  file_path: string | null;
}

type Rows = Record<string, unknown>[];

export class ExportRepository extends Repository {
  /** Inserts a pending export unless the user asked for one within the last `withinSeconds`; answers it, or the latest one in the way. */
  async insertUnlessRecent(id: string, userId: string, withinSeconds: number): Promise<{ created: boolean; row: ExportRow }> {
    const [recent] = await this.db.rows<ExportRow>(sql`
      select id, user_id, status, requested_at, ready_at, expires_at, file_path from data_exports
      where user_id = ${userId} and requested_at > now() - make_interval(secs => ${withinSeconds})
      order by requested_at desc limit 1`);
    if (recent) return { created: false, row: recent };
    const [row] = await this.db.rows<ExportRow>(sql`
      insert into data_exports (id, user_id) values (${id}, ${userId})
      returning id, user_id, status, requested_at, ready_at, expires_at, file_path`);
    return { created: true, row };
  }

  /** Serialises the exports of one user (two concurrent requests take turns): locks the user's row. */
  async lockUser(userId: string): Promise<void> {
    await this.db.rows(sql`select id from users where id = ${userId} for update`);
  }

  async find(id: string): Promise<ExportRow | undefined> {
    const [row] = await this.db.rows<ExportRow>(sql`
      select id, user_id, status, requested_at, ready_at, expires_at, file_path from data_exports where id = ${id}`);
    return row;
  }

  /** Claims the oldest pending export no live worker holds. */
  async claimNext(worker: string, leaseSeconds: number): Promise<ExportRow | undefined> {
    const [row] = await this.db.rows<ExportRow>(sql`
      update data_exports set claimed_by = ${worker}, claimed_until = now() + make_interval(secs => ${leaseSeconds}), attempts = attempts + 1
      where id = (
        select id from data_exports
        where status = 'pending' and (claimed_until is null or claimed_until < now())
        order by requested_at limit 1 for update skip locked)
      returning id, user_id, status, requested_at, ready_at, expires_at, file_path`);
    return row;
  }

  /** Marks the export ready for `lifetimeSeconds`; false when the worker lost its claim. */
  async markReady(id: string, worker: string, filePath: string, size: number, lifetimeSeconds: number): Promise<boolean> {
    const rows = await this.db.rows<{ id: string }>(sql`
      update data_exports set status = 'ready', file_path = ${filePath}, size = ${size}, ready_at = now(),
             expires_at = now() + make_interval(secs => ${lifetimeSeconds}), claimed_by = null, claimed_until = null
      where id = ${id} and claimed_by = ${worker} and status = 'pending' returning id`);
    return rows.length > 0;
  }

  async failed(id: string, worker: string, error: string, retryInSeconds: number): Promise<void> {
    await this.db.rows(sql`
      update data_exports set last_error = ${error.slice(0, 500)}, claimed_until = now() + make_interval(secs => ${retryInSeconds})
      where id = ${id} and claimed_by = ${worker}`);
  }

  /** Ready exports past their lifetime: marked expired; answers their files to remove. */
  async expireDue(limit: number): Promise<{ id: string; file_path: string | null }[]> {
    return this.db.rows<{ id: string; file_path: string | null }>(sql`
      update data_exports set status = 'expired'
      where id in (select id from data_exports where status = 'ready' and expires_at <= now() limit ${limit} for update skip locked)
      returning id, file_path`);
  }

  /** Erasure (CONTRACT §22): the user's exports; answers their files to remove. */
  async deleteAllOf(userId: string): Promise<string[]> {
    const rows = await this.db.rows<{ file_path: string | null }>(sql`delete from data_exports where user_id = ${userId} returning file_path`);
    return rows.flatMap((r) => (r.file_path ? [r.file_path] : []));
  }

  // The reads of an export, one per kind.

  async profile(userId: string): Promise<Record<string, unknown> | undefined> {
    const [row] = await this.db.rows<Record<string, unknown>>(sql`
      select id, username, email, email_verified, phone_number, phone_verified, given_name, family_name, picture, role,
             two_factor_enabled, created_at, updated_at
      from users where id = ${userId}`);
    return row;
  }

  sessions(userId: string): Promise<Rows> {
    return this.db.rows(sql`
      select id, user_agent, ip, created_at, last_seen_at, refresh_expires_at, revoked_at from sessions
      where user_id = ${userId} order by created_at`);
  }

  async contentIds(userId: string): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(sql`
      select id from contents where uploader_id = ${userId} and deleted_at is null order by created_at, id`);
    return rows.map((r) => r.id);
  }

  comments(userId: string): Promise<Rows> {
    return this.db.rows(sql`
      select id, content_id, parent_id, msg, created_at, updated_at from comments
      where author_id = ${userId} and deleted_at is null order by created_at, id`);
  }

  messagesSent(userId: string): Promise<Rows> {
    return this.db.rows(sql`
      select id, room_id, msg, attachments, created_at, edited_at from chat_messages
      where sender_id = ${userId} and deleted_at is null order by created_at, id`);
  }

  async follows(userId: string): Promise<{ following: Rows; followers: Rows }> {
    const following = await this.db.rows(sql`
      select following_id as user_id, created_at from follows where follower_id = ${userId} order by created_at`);
    const followers = await this.db.rows(sql`
      select follower_id as user_id, created_at from follows where following_id = ${userId} order by created_at`);
    return { following, followers };
  }

  /** The users the user blocked (CONTRACT §21). */
  blocks(userId: string): Promise<Rows> {
    return this.db.rows(sql`select blocked_id as user_id, created_at from blocks where blocker_id = ${userId} order by created_at`);
  }

  async reactions(userId: string): Promise<{ content: Rows; comments: Rows; messages: Rows }> {
    const content = await this.db.rows(sql`select content_id, created_at from content_reactions where user_id = ${userId} order by created_at`);
    const comments = await this.db.rows(sql`select comment_id, emoji, created_at from comment_reactions where user_id = ${userId} order by created_at`);
    const messages = await this.db.rows(sql`select message_id, emoji, created_at from chat_message_reactions where user_id = ${userId} order by created_at`);
    return { content, comments, messages };
  }

  savedSearches(userId: string): Promise<Rows> {
    return this.db.rows(sql`select id, name, filters, notify, created_at from saved_searches where user_id = ${userId} order by created_at`);
  }

  notifications(userId: string): Promise<Rows> {
    return this.db.rows(sql`
      select id, type, actor_id, subject_type, subject_id, data, read_at, created_at from notifications
      where user_id = ${userId} order by created_at, id`);
  }

  async payments(userId: string): Promise<{ payments: Rows; ledger: Rows }> {
    const payments = await this.db.rows(sql`
      select id, campaign_id, purpose, method, amount, budget_amount, platform_fee, currency, status, provider, receipt_id, created_at
      from payments where user_id = ${userId} order by created_at`);
    const ledger = await this.db.rows(sql`
      select id, kind, amount, currency, status, payment_id, campaign_id, description, created_at
      from balance_ledger where user_id = ${userId} order by created_at`);
    return { payments, ledger };
  }

  campaigns(userId: string): Promise<Rows> {
    return this.db.rows(sql`select * from campaigns where user_id = ${userId} order by created_at`);
  }
}
