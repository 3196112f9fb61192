// The reports table (CONTRACT §21): users' reports of content, comments, messages and users, and
// the queue a moderator works through, one entry per reported target.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';

export const TARGET_TYPES = ['content', 'comment', 'message', 'user'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];
export const REASONS = ['spam', 'scam', 'offensive', 'misleading_listing', 'duplicate', 'other'] as const;
export type Reason = (typeof REASONS)[number];
export const ACTIONS = ['dismiss', 'remove', 'suspend_user', 'warn'] as const;
export type ModerationAction = (typeof ACTIONS)[number];
export type ReportStatus = 'open' | 'resolved';

/** First key of the advisory lock pair that serialises one reporter's reports (their daily count). */
const REPORTER_LOCK_NAMESPACE = 7_100_023;

export interface ReportRow {
  id: string;
  reporter_id: string | null;
  target_type: TargetType;
  target_id: string;
  target_owner_id: string | null;
  reason: Reason;
  note: string | null;
  status: ReportStatus;
  action: ModerationAction | null;
  resolved_at: Date | null;
  created_at: Date;
}

export interface NewReport {
  id: string;
  reporterId: string;
  reporterVerified: boolean;
  targetType: TargetType;
  targetId: string;
  targetOwnerId: string | null;
  reason: Reason;
  note: string | null;
}

/** One reported target in the queue: its position (oldest report first) and its reports. */
export interface QueueTargetRow {
  target_type: TargetType;
  target_id: string;
  target_owner_id: string | null;
  first_reported_at: Date;
  /** The queue's order key: the target's first report, as text with microseconds (cursor). */
  first_key: string;
}

const REPORT_COLUMNS = sql`id, reporter_id, target_type, target_id, target_owner_id, reason, note, status, action, resolved_at, created_at`;

export class ReportRepository extends Repository {
  /** Serialises one reporter's reports until the transaction ends (their count of the day stays true). */
  async lockReporter(userId: string): Promise<void> {
    await this.db.rows(sql`select pg_advisory_xact_lock(${REPORTER_LOCK_NAMESPACE}, hashtext(${userId}))`);
  }

  /** Reports `reporterId` made since `since`. */
  async countSince(reporterId: string, since: Date): Promise<number> {
    const [row] = await this.db.rows<{ n: number }>(sql`
      select count(*)::int as n from reports where reporter_id = ${reporterId} and created_at > ${since.toISOString()}::timestamptz`);
    return row?.n ?? 0;
  }

  async hasOpen(reporterId: string, targetType: TargetType, targetId: string): Promise<boolean> {
    const rows = await this.db.rows<{ id: string }>(sql`
      select id from reports
      where reporter_id = ${reporterId} and target_type = ${targetType} and target_id = ${targetId} and status = 'open'`);
    return rows.length > 0;
  }

  async insert(r: NewReport): Promise<ReportRow> {
    const [row] = await this.db.rows<ReportRow>(sql`
      insert into reports (id, reporter_id, reporter_verified, target_type, target_id, target_owner_id, reason, note)
      values (${r.id}, ${r.reporterId}, ${r.reporterVerified}, ${r.targetType}, ${r.targetId}, ${r.targetOwnerId}, ${r.reason}, ${r.note})
      returning ${REPORT_COLUMNS}`);
    return row;
  }

  /** Distinct reporters with a verified phone among the open reports of a target. */
  async verifiedOpenReporters(targetType: TargetType, targetId: string): Promise<number> {
    const [row] = await this.db.rows<{ n: number }>(sql`
      select count(distinct reporter_id)::int as n from reports
      where target_type = ${targetType} and target_id = ${targetId} and status = 'open' and reporter_verified`);
    return row?.n ?? 0;
  }

  /**
   * One page of reported targets with reports in `status`, oldest first reported first, after
   * the keyset `after`. A target is `resolved` in the queue when it has resolved reports.
   */
  async queuePage(
    status: ReportStatus,
    targetType: TargetType | null,
    after: { key: string; targetType: string; targetId: string } | null,
    limit: number,
  ): Promise<QueueTargetRow[]> {
    const typeCondition = targetType ? sql`and target_type = ${targetType}` : sql``;
    const seek = after
      ? sql`where (first_reported_at, target_type, target_id) > (${after.key}::timestamptz, ${after.targetType}, ${after.targetId}::uuid)`
      : sql``;
    return this.db.rows<QueueTargetRow>(sql`
      select target_type, target_id, target_owner_id, first_reported_at,
             to_char(first_reported_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as first_key
      from (select target_type, target_id, max(target_owner_id::text)::uuid as target_owner_id, min(created_at) as first_reported_at
            from reports where status = ${status} ${typeCondition}
            group by target_type, target_id) t
      ${seek}
      order by first_reported_at, target_type, target_id
      limit ${limit + 1}`);
  }

  /** The reports in `status` of the given targets, oldest first. */
  async reportsOf(status: ReportStatus, targets: { target_type: TargetType; target_id: string }[]): Promise<ReportRow[]> {
    if (!targets.length) return [];
    const pairs = sql.join(
      targets.map((t) => sql`(${t.target_type}, ${t.target_id}::uuid)`),
      sql`, `,
    );
    return this.db.rows<ReportRow>(sql`
      select ${REPORT_COLUMNS} from reports
      where status = ${status} and (target_type, target_id) in (${pairs})
      order by created_at, id`);
  }

  /** The target's author as its open reports recorded it (null when it has none). */
  async openTargetOwner(targetType: TargetType, targetId: string): Promise<{ owner: string | null } | null> {
    const [row] = await this.db.rows<{ owner: string | null }>(sql`
      select max(target_owner_id::text)::uuid as owner from reports
      where target_type = ${targetType} and target_id = ${targetId} and status = 'open'
      having count(*) > 0`);
    return row ?? null;
  }

  /** Resolves every open report of a target with `action`; the number resolved. */
  async resolveOpen(targetType: TargetType, targetId: string, action: ModerationAction, at: Date): Promise<number> {
    const rows = await this.db.rows<{ id: string }>(sql`
      update reports set status = 'resolved', action = ${action}, resolved_at = ${at.toISOString()}::timestamptz
      where target_type = ${targetType} and target_id = ${targetId} and status = 'open'
      returning id`);
    return rows.length;
  }

  /** The user's account is erased (CONTRACT §22): their reports stay, without who made them or their note. */
  async anonymiseReporter(userId: string): Promise<void> {
    await this.db.rows(sql`update reports set reporter_id = null, note = null where reporter_id = ${userId}`);
  }
}
