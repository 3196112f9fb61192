// Request and answer shapes of reports and of the moderation queue and decisions (CONTRACT §21).
import { z } from 'zod';
import { ACTIONS, REASONS, TARGET_TYPES } from './reports-repository.js';

export const REPORT_NOTE_MAX = 1000;
export const MODERATION_NOTE_MAX = 1000;

/** Ids are strings; one that is not a UUID names nothing, so the service answers 404 for it. */
const id = z.string().trim().min(1).max(100);

export const reportBody = z.strictObject({
  target_type: z.enum(TARGET_TYPES),
  target_id: id,
  reason: z.enum(REASONS),
  note: z.string().trim().max(REPORT_NOTE_MAX, `at most ${REPORT_NOTE_MAX} characters`).nullable().optional(),
});
export type ReportInput = z.output<typeof reportBody>;

export const reportView = z.object({
  id: z.string(),
  target_type: z.enum(TARGET_TYPES),
  target_id: z.string(),
  reason: z.enum(REASONS),
  status: z.enum(['open', 'resolved']),
  created_at: z.string(),
});
export type ReportView = z.output<typeof reportView>;

export const queueQuery = z.strictObject({
  status: z.enum(['open', 'resolved']).default('open'),
  target_type: z.enum(TARGET_TYPES).optional(),
  cursor: z.string().max(200).optional(),
  per_page: z.coerce.number().int().min(1).max(50).default(20),
});
export type QueueQuery = z.output<typeof queueQuery>;

const queueReport = z.object({
  id: z.string(),
  reporter_id: z.string().nullable(),
  reason: z.enum(REASONS),
  note: z.string().nullable(),
  created_at: z.string(),
});

/** What the moderator sees of the target: the text, the item's title and thumbnail, or the user's name; null when it is gone. */
export const targetSnapshot = z
  .object({
    author_id: z.string().nullable(),
    text: z.string().nullable().optional(),
    title: z.string().nullable().optional(),
    thumbnail: z.string().nullable().optional(),
    name: z.string().nullable().optional(),
    status: z.string().optional(),
  })
  .nullable();
export type TargetSnapshot = z.output<typeof targetSnapshot>;

export const queueItem = z.object({
  target_type: z.enum(TARGET_TYPES),
  target_id: z.string(),
  target: targetSnapshot,
  report_count: z.number().int(),
  reasons: z.record(z.string(), z.number().int()),
  first_reported_at: z.string(),
  reports: z.array(queueReport),
});
export type QueueItem = z.output<typeof queueItem>;

export const queuePage = z.object({ items: z.array(queueItem), next_cursor: z.string().nullable() });
export type QueuePage = z.output<typeof queuePage>;

export const targetParams = z.strictObject({ target_type: z.enum(TARGET_TYPES), target_id: id });
export const resolveBody = z.strictObject({
  action: z.enum(ACTIONS),
  note: z.string().trim().max(MODERATION_NOTE_MAX, `at most ${MODERATION_NOTE_MAX} characters`).nullable().optional(),
});
export type ResolveInput = z.output<typeof resolveBody>;
export const resolveView = z.object({
  target_type: z.enum(TARGET_TYPES),
  target_id: z.string(),
  action: z.enum(ACTIONS),
  resolved_reports: z.number().int(),
});
export type ResolveView = z.output<typeof resolveView>;

export const userIdParams = z.strictObject({ userId: id });
export const restoreView = z.object({ user_id: z.string(), status: z.literal('active') });
