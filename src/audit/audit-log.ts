// The append-only audit log of every moderation and role action (CONTRACT §21): a domain of its
// own, below src/moderation/ and src/authorization/, which both append to it. Callers append
// inside the transaction of the change they record (pass its handle), so an action and its entry
// commit together or not at all. Nothing updates or deletes an entry.
import type { Queryable } from '../db/client.js';
import { decodeCursor, pageOf } from '../shared/cursor.js';
import { newId } from '../shared/ids.js';
import type { AuditLogRepository, AuditRow } from './audit-repository.js';
import { MAX_AUDIT_NOTE, type AuditEntryView, type AuditPageView, type AuditQuery } from './schemas.js';

export interface AuditEntry {
  /** The user who acted; null for the service itself. */
  actorId: string | null;
  /** What was done, `<subject>.<verb>` (role.assign, role.update, report.resolve, …). */
  action: string;
  targetType: string;
  targetId: string;
  note?: string;
}

const toView = (row: AuditRow): AuditEntryView => ({
  id: row.id,
  actor_id: row.actor_id,
  action: row.action,
  target_type: row.target_type,
  target_id: row.target_id,
  note: row.note,
  created_at: row.created_at.toISOString(),
});

export class AuditLog {
  constructor(private readonly repository: AuditLogRepository) {}

  /** Appends one entry; with `tx`, inside that transaction (the caller's change and its entry commit together). */
  async append(entry: AuditEntry, tx?: Queryable): Promise<AuditEntryView> {
    const repository = tx ? this.repository.in(tx) : this.repository;
    const row = await repository.insert({
      id: newId(),
      actorId: entry.actorId,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      note: (entry.note ?? '').slice(0, MAX_AUDIT_NOTE),
    });
    return toView(row);
  }

  /** Newest first, filtered by actor and/or target; `next_cursor` is null on the last page. */
  async list(query: AuditQuery): Promise<AuditPageView> {
    const after = decodeCursor(query.cursor);
    const rows = await this.repository.page({ actorId: query.actor_id, targetId: query.target_id }, after, query.limit + 1);
    const { page, nextCursor } = pageOf(rows, query.limit);
    return { items: page.map(toView), next_cursor: nextCursor };
  }
}
