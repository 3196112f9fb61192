// Request shapes of the chat endpoints and of the /chat socket namespace (same schemas for both).
import { z } from 'zod';
import { pageQuery } from '../shared/cursor.js';

const MESSAGE_MAX_LENGTH = 4000;
const MAX_ATTACHMENTS = 10;
const MAX_ROOM_MEMBERS = 100;
/** Largest attachment size a client may declare (bytes): 5 GiB. */
const MAX_ATTACHMENT_BYTES = 5 * 1024 ** 3;

/** Ids are strings; one that is not a UUID can never exist, so the service answers 404 for it. */
const id = z.string().trim().min(1).max(100);

/** Only http(s) links: never javascript:, data: or file: URLs in something a client renders as a link. */
const httpUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');

// eslint-disable-next-line no-control-regex -- control characters are what a file name may not hold
const PLAIN_FILE_NAME = /^[^\u0000-\u001f\u007f/\\]+$/;

const attachmentInput = z.strictObject({
  type: z.enum(['image', 'video', 'audio', 'document', 'file']),
  fileName: z.string().trim().min(1).max(255).regex(PLAIN_FILE_NAME, 'must be a plain file name'),
  url: httpUrl,
  fileSize: z.number().int().min(0).max(MAX_ATTACHMENT_BYTES),
});
export type AttachmentInput = z.infer<typeof attachmentInput>;

export const sendMessageBody = z.strictObject({
  roomId: id,
  msg: z.string().trim().max(MESSAGE_MAX_LENGTH, `at most ${MESSAGE_MAX_LENGTH} characters`).optional(),
  attachments: z.array(attachmentInput).max(MAX_ATTACHMENTS, `at most ${MAX_ATTACHMENTS} attachments`).optional(),
});
export type SendMessageInput = z.infer<typeof sendMessageBody>;

export const createRoomBody = z.strictObject({
  memberIds: z.array(id).min(1, 'name at least one member').max(MAX_ROOM_MEMBERS, `at most ${MAX_ROOM_MEMBERS} members`),
  name: z.string().trim().min(1).max(100).optional(),
  contentId: id
    .optional()
    .describe('The item the room is about (CONTRACT §26): one the caller may see, whose owner is a member; opened by someone else, the room is a lead of it'),
});
export type CreateRoomInput = z.infer<typeof createRoomBody>;

export const roomIdParams = z.strictObject({ roomId: id });
export const joinRoomPayload = z.strictObject({ roomId: id });
export const messageIdParams = z.strictObject({ id: id.describe('Message id') });

/** Rooms listed per page: up to 100, and 100 by default so a client that sends no limit sees what it saw before paging. */
export const roomsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(100).describe('Rooms per page (1-100, default 100)'),
  cursor: z.string().max(512).optional().describe('nextCursor of the previous page'),
});
export type RoomsQuery = z.infer<typeof roomsQuery>;

/** History: newest first with `cursor`, or what came after a message (oldest first) with `after`. */
export const messagesQuery = pageQuery.extend({
  after: id.optional().describe('A message id: list the messages after it, oldest first (not with cursor)'),
});
export type MessagesQuery = z.infer<typeof messagesQuery>;

export const editMessageBody = z.strictObject({
  msg: z
    .string()
    .trim()
    .max(MESSAGE_MAX_LENGTH, `at most ${MESSAGE_MAX_LENGTH} characters`)
    .describe('The new text (may be empty only when the message has attachments)'),
});

export const readBody = z.strictObject({ messageId: id.describe('The last message the caller has read') });
export const roomReadPayload = z.strictObject({ roomId: id, messageId: id });
export const typingPayload = z.strictObject({ roomId: id });
