// The chat message of SPEC 2.9 as clients see it (REST answers, `message:new`/`message:updated`
// pushes, the chat domain events), and its tombstone once deleted: a type and its zod schema only, so the event map can name it without importing a service.
import { z } from 'zod';

export interface ChatPerson {
  userId: string;
  name: string;
  picture: string | null;
}

/** SPEC 2.9 message. */
export interface MessageView {
  _id: string;
  roomId: string;
  msg: string;
  sender: ChatPerson;
  attachments: { type: string; fileName: string; url: string; downloadable: boolean }[];
  reactions: ReactionSummary[];
  createdAt: string;
  /** When the sender last edited the text (CONTRACT §18); null when never edited. */
  editedAt: string | null;
}

/** One emoji on a message: how many chose it and who, first chosen first (a room has at most 101 members). */
export interface ReactionSummary {
  emoji: string;
  count: number;
  userIds: string[];
}

/** A deleted message as the history shows it (CONTRACT §18): its place, nothing of its content. */
export interface DeletedMessageView {
  _id: string;
  roomId: string;
  deleted: true;
  createdAt: string;
}

/** An entry of a room's history, `last_message` of a room. */
export type HistoryItem = MessageView | DeletedMessageView;

// The same shape as a zod schema, for the documents (REST responses, the AsyncAPI contract);
// the check below fails the typecheck when the interface and the schema part ways.

const chatPersonSchema = z.object({ userId: z.string(), name: z.string(), picture: z.string().nullable() });

export const messageViewSchema = z.object({
  _id: z.string(),
  roomId: z.string(),
  msg: z.string(),
  sender: chatPersonSchema,
  attachments: z.array(z.object({ type: z.string(), fileName: z.string(), url: z.string(), downloadable: z.boolean() })),
  reactions: z.array(z.object({ emoji: z.string(), count: z.number().int(), userIds: z.array(z.string()) })),
  createdAt: z.string(),
  editedAt: z.string().nullable().describe('When the sender last edited the text; null when never edited'),
});

export const deletedMessageViewSchema = z.object({
  _id: z.string(),
  roomId: z.string(),
  deleted: z.literal(true),
  createdAt: z.string(),
});

export const historyItemSchema = z.union([messageViewSchema, deletedMessageViewSchema]);

type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const messageViewSchemaMatches: SameShape<z.output<typeof messageViewSchema>, MessageView> = true;
const deletedViewSchemaMatches: SameShape<z.output<typeof deletedMessageViewSchema>, DeletedMessageView> = true;
void messageViewSchemaMatches;
void deletedViewSchemaMatches;
