// What the /chat namespace pushes besides messages (CONTRACT §18): a deletion, the reactions of a
// message, a member's read position, someone typing. Each declared once as a zod schema (for the
// domain events, the typed socket maps and the AsyncAPI contract), its type the schema's output,
// like message-view.ts.
import { z } from 'zod';
import { reactionSummarySchema } from './message-view.js';

export const messageDeletedViewSchema = z.object({ roomId: z.string(), _id: z.string() });
export type MessageDeletedView = z.output<typeof messageDeletedViewSchema>;

export const messageReactionViewSchema = z.object({ roomId: z.string(), _id: z.string(), reactions: z.array(reactionSummarySchema) });
export type MessageReactionView = z.output<typeof messageReactionViewSchema>;

/** A member's read position: the last message they have read, and when they said so. */
export const readViewSchema = z.object({
  roomId: z.string(),
  userId: z.string(),
  messageId: z.string().describe('The last message the member has read'),
  read_at: z.string(),
});
export type ReadView = z.output<typeof readViewSchema>;

export const typingViewSchema = z.object({ roomId: z.string(), userId: z.string(), typing: z.boolean() });
export type TypingView = z.output<typeof typingViewSchema>;
