// Shapes of the block endpoints (CONTRACT §21): the list's query and the answers.
import { z } from 'zod';
import { pageQuery } from '../shared/cursor.js';

/** `GET /users/blocked?cursor&limit` (limit 1–100, default 20). */
export const blockedListQuery = pageQuery;

export const blockRecordSchema = z.object({ user_id: z.string(), blocked_at: z.string() });
export const unblockedSchema = z.object({ user_id: z.string(), blocked: z.literal(false) });
export const blockedListSchema = z.object({
  items: z.array(z.object({ user_id: z.string(), name: z.string(), avatar: z.string().nullable(), blocked_at: z.string() })),
  next_cursor: z.string().nullable(),
});
