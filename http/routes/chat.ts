// {sns_api}/chat: rooms, messages, and beyond sending (CONTRACT §8, §18): edits, deletion,
// reactions, read positions, the room list with unread counts, catching up with `?after=`.
// Every change is also pushed on /chat (realtime/namespaces/chat.ts) to the room on every node.
import { z } from 'zod';
import { defineRoute, routeModule } from '../route.js';
import { reactionBody } from '../../src/comments/index.js';
import { createRoomBody, editMessageBody, messageIdParams, messagesQuery, readBody, roomIdParams, roomsQuery, sendMessageBody } from '../../src/chat/index.js';
import { historyItemSchema, messageViewSchema } from '../../src/chat/index.js';
import { messageDeletedViewSchema, messageReactionViewSchema, readViewSchema } from '../../src/chat/index.js';

const BASE = '/sns/api/v1/chat';
const TAG = 'sns';

const person = z.object({ userId: z.string(), name: z.string(), picture: z.string().nullable() });
const room = z.object({
  roomId: z.string(),
  name: z.string().nullable(),
  members: z.array(person),
  direct: z.boolean(),
  createdAt: z.string(),
  lastMessageAt: z.string().nullable(),
  contentId: z.string().optional().describe('The item the room was opened on, when asked with one (CONTRACT §26)'),
});
const roomListItem = room.extend({
  unread_count: z.number().int().describe("Others' messages after the caller's read position, counted up to 100 (100 means 100 or more)"),
  last_message: historyItemSchema.nullable().describe('The newest message (a tombstone when deleted); null in an empty room'),
});

export const chatRoutes = routeModule(['chat'], (_app, services) => {
  const { chat } = services;
  return [
    defineRoute({
      method: 'POST',
      path: `${BASE}/rooms`,
      tag: TAG,
      summary: 'Create a chat room (the caller is always a member); a two-person room without a name is reused',
      auth: 'user',
      permission: 'create:chat',
      body: createRoomBody,
      successStatus: 201,
      responseData: room,
      errorStatuses: [400, 401, 403, 404],
      handler: async (ctx) => {
        const { room: created, created: isNew } = await chat.createRoom(ctx.caller, ctx.body);
        return isNew ? { status: 201, message: 'Room created', data: created } : { status: 200, message: 'Existing direct room', data: created };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${BASE}/rooms`,
      tag: TAG,
      summary: "The caller's chat rooms, most recently active first, with unread counts and the newest message (cursor paging)",
      auth: 'user',
      query: roomsQuery,
      responseData: z.object({ rooms: z.array(roomListItem), hasMore: z.boolean(), nextCursor: z.string().nullable() }),
      errorStatuses: [400, 401],
      handler: async (ctx) => ({ data: await chat.listRooms(ctx.caller, ctx.query) }),
    }),
    defineRoute({
      method: 'GET',
      path: `${BASE}/rooms/:roomId/messages`,
      tag: TAG,
      summary: 'Messages of a room (members only): newest first with cursor paging, or with `after` what came after a message, oldest first',
      auth: 'user',
      params: roomIdParams,
      query: messagesQuery,
      responseData: z.object({ messages: z.array(historyItemSchema), hasMore: z.boolean(), nextCursor: z.string().nullable() }),
      errorStatuses: [400, 401, 403, 404],
      handler: async (ctx) => ({ data: await chat.listMessages(ctx.caller, ctx.params.roomId, ctx.query) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${BASE}/rooms/:roomId/read`,
      tag: TAG,
      summary: "Store the caller's last read message of a room (never moves backwards); pushed as read on /chat",
      auth: 'user',
      params: roomIdParams,
      body: readBody,
      responseData: readViewSchema,
      errorStatuses: [400, 401, 403, 404],
      handler: async (ctx) => ({ message: 'Read position stored', data: await chat.markRead(ctx.caller, ctx.params.roomId, ctx.body.messageId) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${BASE}/messages`,
      tag: TAG,
      summary: 'Send a chat message (members only); pushed as message:new on /chat',
      auth: 'user',
      permission: 'create:chat',
      body: sendMessageBody,
      successStatus: 201,
      responseData: messageViewSchema,
      errorStatuses: [400, 401, 403, 404],
      handler: async (ctx) => ({ status: 201, message: 'Message sent', data: await chat.sendMessage(ctx.caller, ctx.body) }),
    }),
    defineRoute({
      method: 'PATCH',
      path: `${BASE}/messages/:id`,
      tag: TAG,
      summary: "Edit the text of the caller's own message within 15 minutes of sending it; pushed as message:updated",
      auth: 'user',
      permission: 'create:chat',
      params: messageIdParams,
      body: editMessageBody,
      responseData: messageViewSchema,
      errorStatuses: [400, 401, 403, 404],
      handler: async (ctx) => ({ message: 'Message edited', data: await chat.editMessage(ctx.caller, ctx.params.id, ctx.body.msg) }),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${BASE}/messages/:id`,
      tag: TAG,
      summary: "Delete the caller's own message (the history keeps a tombstone); pushed as message:deleted",
      auth: 'user',
      permission: 'create:chat',
      params: messageIdParams,
      responseData: messageDeletedViewSchema,
      errorStatuses: [401, 403, 404],
      handler: async (ctx) => ({ message: 'Message deleted', data: await chat.deleteMessage(ctx.caller, ctx.params.id) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${BASE}/messages/:id/reactions`,
      tag: TAG,
      summary: "Add the caller's emoji to a message of one of their rooms (once per emoji); pushed as message:reaction",
      auth: 'user',
      permission: 'create:chat',
      params: messageIdParams,
      body: reactionBody,
      responseData: messageReactionViewSchema,
      errorStatuses: [400, 401, 403, 404, 409],
      handler: async (ctx) => ({ message: 'Reaction saved', data: await chat.addReaction(ctx.caller, ctx.params.id, ctx.body.emoji) }),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${BASE}/messages/:id/reactions`,
      tag: TAG,
      summary: "Remove the caller's emoji from a message; pushed as message:reaction",
      auth: 'user',
      permission: 'create:chat',
      params: messageIdParams,
      body: reactionBody,
      responseData: messageReactionViewSchema,
      errorStatuses: [400, 401, 403, 404],
      handler: async (ctx) => ({ message: 'Reaction removed', data: await chat.removeReaction(ctx.caller, ctx.params.id, ctx.body.emoji) }),
    }),
  ];
});
