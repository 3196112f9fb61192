// The comment of SPEC 2.8 as clients see it (REST answers, `comment:new` and `comment:reply`
// pushes, the `comment.created` domain event): declared once as a zod schema (for the documents:
// REST responses, the AsyncAPI contract), its type the schema's output, so the event map can name
// it without importing a service (zod only).
import { z } from 'zod';

/** SPEC 2.8 comment, plus `parentId` (null for top-level comments). */
export const commentViewSchema = z.object({
  _id: z.string(),
  contentId: z.string(),
  parentId: z.string().nullable(),
  msg: z.string(),
  author: z.object({ userId: z.string(), name: z.string(), avatarUrl: z.string().nullable() }),
  reactions: z.array(z.object({ author: z.object({ userId: z.string(), name: z.string() }), emoji: z.string() })),
  replyCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  deleted: z.literal(true).optional().describe('Set when a moderator removed the comment: msg is empty'),
});

export type CommentView = z.output<typeof commentViewSchema>;
