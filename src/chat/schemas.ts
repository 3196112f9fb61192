// Request shapes of the chat endpoints and of the /chat socket namespace (same schemas for both).
import { z } from 'zod';

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

const attachmentInput = z.strictObject({
  type: z.enum(['image', 'video', 'audio', 'document', 'file']),
  // eslint-disable-next-line no-control-regex
  fileName: z.string().trim().min(1).max(255).regex(/^[^\u0000-\u001f\u007f/\\]+$/, 'must be a plain file name'),
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
});
export type CreateRoomInput = z.infer<typeof createRoomBody>;

export const roomIdParams = z.strictObject({ roomId: id });
export const joinRoomPayload = z.strictObject({ roomId: id });
