// What the /chat namespace pushes besides messages (CONTRACT §18): a deletion, the reactions of a
// message, a member's read position, someone typing. Types and zod schemas only (for the domain
// events, the typed socket maps and the AsyncAPI contract), like message-view.ts.
import { z } from 'zod';
import type { ReactionSummary } from './message-view.js';

export interface MessageDeletedView {
  roomId: string;
  _id: string;
}

export interface MessageReactionView {
  roomId: string;
  _id: string;
  reactions: ReactionSummary[];
}

/** A member's read position: the last message they have read, and when they said so. */
export interface ReadView {
  roomId: string;
  userId: string;
  messageId: string;
  read_at: string;
}

export interface TypingView {
  roomId: string;
  userId: string;
  typing: boolean;
}

const reactionSummarySchema = z.object({
  emoji: z.string(),
  count: z.number().int(),
  userIds: z.array(z.string()).describe('Who chose the emoji, first first'),
});

export const messageDeletedViewSchema = z.object({ roomId: z.string(), _id: z.string() });
export const messageReactionViewSchema = z.object({ roomId: z.string(), _id: z.string(), reactions: z.array(reactionSummarySchema) });
export const readViewSchema = z.object({
  roomId: z.string(),
  userId: z.string(),
  messageId: z.string().describe('The last message the member has read'),
  read_at: z.string(),
});
export const typingViewSchema = z.object({ roomId: z.string(), userId: z.string(), typing: z.boolean() });

type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const viewsMatch: [
  SameShape<z.output<typeof messageDeletedViewSchema>, MessageDeletedView>,
  SameShape<z.output<typeof messageReactionViewSchema>, MessageReactionView>,
  SameShape<z.output<typeof readViewSchema>, ReadView>,
  SameShape<z.output<typeof typingViewSchema>, TypingView>,
] = [true, true, true, true];
void viewsMatch;
