// The queries on resumable_uploads (migration 0019): who owns a tus upload and what it is for,
// its state, and the lease of the one request that may write to it (across every node).
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { jsonb, sqlList } from '../db/sql-fragments.js';

export type ResumableState = 'uploading' | 'completing' | 'completed';

export interface ResumableUploadRow {
  id: string;
  user_id: string;
  content_id: string;
  topic_key: string | null;
  filename: string;
  size: number;
  metadata: Record<string, string | null>;
  state: ResumableState;
  created_at: Date;
  expires_at: Date;
}

export interface NewResumableUpload {
  id: string;
  userId: string;
  contentId: string;
  topicKey: string | null;
  filename: string;
  size: number;
  metadata: Record<string, string | null>;
  ttlSeconds: number;
}

const COLUMNS = sql`id, user_id, content_id, topic_key, filename, size, metadata, state, created_at, expires_at`;

export class ResumableUploadRepository extends Repository {
  async insert(u: NewResumableUpload): Promise<ResumableUploadRow> {
    const [row] = await this.db.rows<ResumableUploadRow>(sql`
      insert into resumable_uploads (id, user_id, content_id, topic_key, filename, size, metadata, expires_at)
      values (${u.id}, ${u.userId}, ${u.contentId}, ${u.topicKey}, ${u.filename}, ${u.size}, ${jsonb(u.metadata)},
        now() + make_interval(secs => ${u.ttlSeconds}))
      returning ${COLUMNS}`);
    return row;
  }

  /** The upload, unless it has expired (an expired upload is gone, whether or not the sweep has run). */
  async findLive(id: string): Promise<ResumableUploadRow | null> {
    const [row] = await this.db.rows<ResumableUploadRow>(sql`
      select ${COLUMNS} from resumable_uploads where id = ${id} and expires_at > now()`);
    return row ?? null;
  }

  async delete(id: string): Promise<void> {
    await this.db.rows(sql`delete from resumable_uploads where id = ${id}`);
  }

  /**
   * Takes the write lease for `holder`: only when nobody holds it or the holder's lease ran out
   * (its node died). False when another request holds it.
   */
  async takeLease(id: string, holder: string, seconds: number): Promise<boolean> {
    const rows = await this.db.rows(sql`
      update resumable_uploads set locked_by = ${holder}, lock_until = now() + make_interval(secs => ${seconds})
      where id = ${id} and (locked_by is null or lock_until < now())
      returning id`);
    return rows.length === 1;
  }

  /** Extends a lease still held by `holder`; false when it was lost. */
  async renewLease(id: string, holder: string, seconds: number): Promise<boolean> {
    const rows = await this.db.rows(sql`
      update resumable_uploads set lock_until = now() + make_interval(secs => ${seconds})
      where id = ${id} and locked_by = ${holder}
      returning id`);
    return rows.length === 1;
  }

  async releaseLease(id: string, holder: string): Promise<void> {
    await this.db.rows(sql`
      update resumable_uploads set locked_by = null, lock_until = null where id = ${id} and locked_by = ${holder}`);
  }

  /**
   * Claims the completion of an upload whose last byte arrived: once, on one node. A completion
   * whose node died mid-way is claimable again after `staleSeconds`.
   */
  async claimCompletion(id: string, staleSeconds: number): Promise<ResumableUploadRow | null> {
    const [row] = await this.db.rows<ResumableUploadRow>(sql`
      update resumable_uploads set state = 'completing', completing_since = now()
      where id = ${id} and expires_at > now()
        and (state = 'uploading' or (state = 'completing' and completing_since < now() - make_interval(secs => ${staleSeconds})))
      returning ${COLUMNS}`);
    return row ?? null;
  }

  /** A completion that could not finish for a passing reason: the last PATCH may be sent again. */
  async reopen(id: string): Promise<void> {
    await this.db.rows(sql`
      update resumable_uploads set state = 'uploading', completing_since = null where id = ${id} and state = 'completing'`);
  }

  async markCompleted(id: string): Promise<void> {
    await this.db.rows(sql`
      update resumable_uploads set state = 'completed', completing_since = null where id = ${id}`);
  }

  /** Expired uploads that no request is writing to right now (oldest first). */
  async listExpired(limit: number): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(sql`
      select id from resumable_uploads
      where expires_at <= now() and (locked_by is null or lock_until < now())
      order by expires_at
      limit ${limit}`);
    return rows.map((r) => r.id);
  }

  /** Removes expired rows among `ids` (still expired and unleased when the delete runs). */
  async deleteExpired(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.rows<{ id: string }>(sql`
      delete from resumable_uploads
      where id in (${sqlList(ids)}) and expires_at <= now() and (locked_by is null or lock_until < now())
      returning id`);
    return rows.map((r) => r.id);
  }

  /** Which of `ids` have a row. */
  async existing(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.rows<{ id: string }>(sql`select id from resumable_uploads where id in (${sqlList(ids)})`);
    return new Set(rows.map((r) => r.id));
  }
}
