// The notification types of CONTRACT §17 and the shape a client sees (inbox and `notification:new`).
import { z } from 'zod';

export const NOTIFICATION_TYPES = [
  'follow',
  'comment',
  'reply',
  'reaction',
  'mention',
  'video.completed',
  'video.failed',
  'campaign.completed',
  'saved_search.match',
  'login.new_device',
  'moderation.action',
  'export.ready',
  'lead.new',
] as const;

export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** What a notification is about: `{type: 'content', id}`, `{type: 'comment', id}`, … */
export interface NotificationSubject {
  type: string;
  id: string;
}

/** A notification as CONTRACT §17 lists it (inbox, `notification:new`, the OpenAPI and AsyncAPI documents). */
export const notificationViewSchema = z.object({
  id: z.string(),
  type: z.enum(NOTIFICATION_TYPES),
  actor: z
    .object({ userId: z.string(), name: z.string(), avatar: z.string().nullable() })
    .nullable()
    .describe('Who caused it; null for the system (a video finished, a campaign ended, a login)'),
  subject: z.object({ type: z.string(), id: z.string() }).describe('What it is about: content, comment, campaign, saved_search, session or export, by id'),
  data: z.record(z.string(), z.unknown()).describe('Type-specific details (reaction: count; mention and comment: contentId, commentId)'),
  read_at: z.string().nullable(),
  created_at: z.string(),
});

export type NotificationView = z.infer<typeof notificationViewSchema>;

/** What a caller of `notify` gives. */
export interface NotifyInput {
  /** The recipient. */
  userId: string;
  type: NotificationType;
  /** Who caused it; null for the system (a video finished, a campaign ended). */
  actorId: string | null;
  subject: NotificationSubject;
  data?: Record<string, unknown>;
  /**
   * Set when the causing change could run twice (a retried job): one notification per
   * (recipient, key), whatever the number of attempts.
   */
  dedupeKey?: string;
}
