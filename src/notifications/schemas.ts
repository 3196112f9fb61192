// Inbox request schemas (CONTRACT §17).
import { z } from 'zod';
import { isUuid } from '../shared/ids.js';

/** Ids one mark-read call may name. */
export const MAX_MARK_READ_IDS = 100;

export const inboxQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Notifications per page (1-100, default 20)'),
  cursor: z.string().max(512).optional().describe('nextCursor of the previous page'),
});

export const markReadBody = z.strictObject({
  ids: z
    .array(z.string().refine(isUuid, 'a notification id (uuid)'))
    .min(1)
    .max(MAX_MARK_READ_IDS)
    .optional()
    .describe('Notifications to mark read; all of the caller’s when absent'),
});
