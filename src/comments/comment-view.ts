// The comment of SPEC 2.8 as clients see it (REST answers, `comment:new` and `comment:reply`
// pushes, the `comment.created` domain event): types only, so the event map can name it without
// importing a service (zod only).
import { z } from 'zod';

/** SPEC 2.8 comment, plus `parentId` (null for top-level comments). */
export interface CommentView {
  _id: string;
  contentId: string;
  parentId: string | null;
  msg: string;
  author: { userId: string; name: string; avatarUrl: string | null };
  reactions: { author: { userId: string; name: string }; emoji: string }[];
  replyCount: number;
  createdAt: string;
  updatedAt: string;
  /** Present when a moderator removed it (CONTRACT §21): `msg` is empty and nothing of it is shown. */
  deleted?: true;
}

// The same shape as a zod schema, for the documents (REST responses, the AsyncAPI contract);
// the check below fails the typecheck when the interface and the schema part ways.

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

type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const commentViewSchemaMatches: SameShape<z.output<typeof commentViewSchema>, CommentView> = true;
void commentViewSchemaMatches;
