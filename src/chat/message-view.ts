// The chat message of SPEC 2.9 as clients see it (REST answers, `message:new`/`message:updated`
// pushes, the chat domain events), and its tombstone once deleted. Each is declared once as a zod
// schema (for the documents: REST responses, the AsyncAPI contract) and its type is the schema's
// output, so the event map can name it without importing a service.
import { z } from 'zod';

const chatPersonSchema = z.object({ userId: z.string(), name: z.string(), picture: z.string().nullable() });
export type ChatPerson = z.output<typeof chatPersonSchema>;

/** One emoji on a message: how many chose it and who, first chosen first (a room has at most 101 members). */
export const reactionSummarySchema = z.object({
  emoji: z.string(),
  count: z.number().int(),
  userIds: z.array(z.string()).describe('Who chose the emoji, first first'),
});
export type ReactionSummary = z.output<typeof reactionSummarySchema>;

/** SPEC 2.9 message. */
export const messageViewSchema = z.object({
  _id: z.string(),
  roomId: z.string(),
  msg: z.string(),
  sender: chatPersonSchema,
  attachments: z.array(z.object({ type: z.string(), fileName: z.string(), url: z.string(), downloadable: z.boolean() })),
  reactions: z.array(reactionSummarySchema),
  createdAt: z.string(),
  editedAt: z.string().nullable().describe('When the sender last edited the text; null when never edited'),
});
export type MessageView = z.output<typeof messageViewSchema>;

/** A deleted message as the history shows it (CONTRACT §18): its place, nothing of its content. */
export const deletedMessageViewSchema = z.object({
  _id: z.string(),
  roomId: z.string(),
  deleted: z.literal(true),
  createdAt: z.string(),
});
export type DeletedMessageView = z.output<typeof deletedMessageViewSchema>;

/** An entry of a room's history, `last_message` of a room. */
export const historyItemSchema = z.union([messageViewSchema, deletedMessageViewSchema]);
export type HistoryItem = z.output<typeof historyItemSchema>;
