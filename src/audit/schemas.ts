// Request and response shapes of the audit log's endpoint (CONTRACT §21); reports, the queue and
// decisions keep theirs in src/moderation/report-schemas.ts.
import { z } from 'zod';
import { isUuid } from '../shared/ids.js';

// --- Audit log --------------------------------------------------------------------------------

/** Longest note an audit entry keeps (the column's bound, migration 0021). */
export const MAX_AUDIT_NOTE = 2000;

export const auditQuery = z.strictObject({
  cursor: z.string().max(512).optional().describe('next_cursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Entries per page (1-100, default 20)'),
  actor_id: z.string().trim().refine(isUuid, 'a user id (uuid)').optional().describe('Only entries by this actor'),
  target_id: z.string().trim().min(1).max(128).optional().describe('Only entries about this target (user, role, content, comment or message id)'),
});

export type AuditQuery = z.output<typeof auditQuery>;

export const auditEntryView = z.object({
  id: z.string(),
  actor_id: z.string().nullable().describe('Who acted; null once that account is gone'),
  action: z.string().describe('e.g. role.assign, role.update (docs/moderation.md)'),
  target_type: z.string(),
  target_id: z.string(),
  note: z.string(),
  created_at: z.string(),
});

export const auditPageView = z.object({
  items: z.array(auditEntryView),
  next_cursor: z.string().nullable(),
});

export type AuditEntryView = z.output<typeof auditEntryView>;
export type AuditPageView = z.output<typeof auditPageView>;
