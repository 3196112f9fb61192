// The queries on moderation_audit_log (migration 0021): append and read, never update or delete.
import { sql, type SQL } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import type { KeysetPosition } from '../shared/cursor.js';

export interface AuditRow {
  id: string;
  actor_id: string | null;
  action: string;
  target_type: string;
  target_id: string;
  note: string;
  created_at: Date;
}

export interface NewAuditRow {
  id: string;
  actorId: string | null;
  action: string;
  targetType: string;
  targetId: string;
  note: string;
}

export interface AuditFilter {
  actorId?: string;
  targetId?: string;
}

const COLUMNS = sql`id, actor_id, action, target_type, target_id, note, created_at`;

export class AuditLogRepository extends Repository {
  async insert(row: NewAuditRow): Promise<AuditRow> {
    const [inserted] = await this.db.rows<AuditRow>(sql`
      insert into moderation_audit_log (id, actor_id, action, target_type, target_id, note, created_at)
      values (${row.id}, ${row.actorId}, ${row.action}, ${row.targetType}, ${row.targetId}, ${row.note},
              -- Milliseconds, as the page cursor (a JavaScript date) carries them: a finer time
              -- would let entries of one millisecond fall between two pages.
              date_trunc('milliseconds', clock_timestamp()))
      returning ${COLUMNS}`);
    return inserted;
  }

  /** Entries matching `filter`, newest first, after `after`; `limit` rows at most. */
  page(filter: AuditFilter, after: KeysetPosition | null, limit: number): Promise<AuditRow[]> {
    const conditions: SQL[] = [];
    if (filter.actorId !== undefined) conditions.push(sql`actor_id = ${filter.actorId}::uuid`);
    if (filter.targetId !== undefined) conditions.push(sql`target_id = ${filter.targetId}`);
    if (after) conditions.push(sql`(created_at, id) < (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)`);
    const where = conditions.length ? sql`where ${sql.join(conditions, sql` and `)}` : sql``;
    return this.db.rows<AuditRow>(sql`
      select ${COLUMNS} from moderation_audit_log ${where}
      order by created_at desc, id desc
      limit ${limit}`);
  }
}
