// {sns_api} = /sns/api/v1: comments (with replies and reactions) and chat (rooms, messages).
import { z } from 'zod';
import { defineRoute, type RouteModule } from '../route.js';
import { commentIdParams, contentIdParams, createCommentBody, reactionBody } from '../../src/comments/schemas.js';
import { pageQuery } from '../../src/comments/cursor.js';
import { createRoomBody, roomIdParams, sendMessageBody } from '../../src/chat/schemas.js';

const BASE = '/sns/api/v1';
const TAG = 'sns';

const person = z.object({ userId: z.string(), name: z.string(), picture: z.string().nullable() });
const comment = z.object({
  _id: z.string(),
  contentId: z.string(),
  parentId: z.string().nullable(),
  msg: z.string(),
  author: z.object({ userId: z.string(), name: z.string(), avatarUrl: z.string().nullable() }),
  reactions: z.array(z.object({ author: z.object({ userId: z.string(), name: z.string() }), emoji: z.string() })),
  replyCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const commentPage = z.object({ comments: z.array(comment), hasMore: z.boolean(), nextCursor: z.string().nullable() });
const message = z.object({
  _id: z.string(),
  roomId: z.string(),
  msg: z.string(),
  sender: person,
  attachments: z.array(z.object({ type: z.string(), fileName: z.string(), url: z.string(), downloadable: z.boolean() })),
  reactions: z.array(z.unknown()),
  createdAt: z.string(),
});
const room = z.object({
  roomId: z.string(),
  name: z.string().nullable(),
  members: z.array(person),
  direct: z.boolean(),
  createdAt: z.string(),
  lastMessageAt: z.string().nullable(),
});

export const snsRoutes: RouteModule = (app, services) => {
  const { comments, chat } = services;
  return [
    defineRoute({
      method: 'POST',
      path: `${BASE}/comments`,
      tag: TAG,
      summary: 'Comment on a content item, or reply to a comment (parentId)',
      auth: 'user',
      permission: 'create:comment',
      rateLimits: ['comments'],
      body: createCommentBody,
      successStatus: 201,
      responseData: comment,
      errorStatuses: [400, 401, 403, 404, 429],
      handler: async (ctx) => ({ status: 201, message: 'Comment created', data: await comments.createComment(ctx.caller, ctx.body) }),
    }),
    defineRoute({
      method: 'GET',
      path: `${BASE}/comments/:contentId`,
      tag: TAG,
      summary: 'Top-level comments of a content item, newest first (cursor paging)',
      auth: 'optional',
      params: contentIdParams,
      query: pageQuery,
      responseData: commentPage,
      errorStatuses: [400, 404],
      handler: async (ctx) => ({ data: await comments.listTopLevel(ctx.optionalCaller, ctx.params.contentId, ctx.query) }),
    }),
    defineRoute({
      method: 'GET',
      path: `${BASE}/comments/:commentId/replies`,
      tag: TAG,
      summary: 'Replies to a comment, oldest first (cursor paging)',
      auth: 'optional',
      params: commentIdParams,
      query: pageQuery,
      responseData: commentPage,
      errorStatuses: [400, 404],
      handler: async (ctx) => ({ data: await comments.listReplies(ctx.optionalCaller, ctx.params.commentId, ctx.query) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${BASE}/comments/:commentId/reactions`,
      tag: TAG,
      summary: "Set the caller's reaction (one emoji) on a comment; sending again replaces it",
      auth: 'user',
      permission: 'create:reaction',
      params: commentIdParams,
      body: reactionBody,
      responseData: comment,
      errorStatuses: [400, 401, 403, 404],
      handler: async (ctx) => ({ message: 'Reaction saved', data: await comments.react(ctx.caller, ctx.params.commentId, ctx.body.emoji) }),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${BASE}/comments/:commentId/reactions`,
      tag: TAG,
      summary: "Remove the caller's reaction from a comment",
      auth: 'user',
      permission: 'create:reaction',
      params: commentIdParams,
      responseData: comment,
      errorStatuses: [401, 403, 404],
      handler: async (ctx) => ({ message: 'Reaction removed', data: await comments.removeReaction(ctx.caller, ctx.params.commentId) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${BASE}/chat/rooms`,
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
      path: `${BASE}/chat/rooms`,
      tag: TAG,
      summary: "The caller's chat rooms, most recently active first",
      auth: 'user',
      responseData: z.object({ rooms: z.array(room) }),
      errorStatuses: [401],
      handler: async (ctx) => ({ data: { rooms: await chat.listRooms(ctx.caller) } }),
    }),
    defineRoute({
      method: 'GET',
      path: `${BASE}/chat/rooms/:roomId/messages`,
      tag: TAG,
      summary: 'Messages of a room, newest first (members only; cursor paging)',
      auth: 'user',
      params: roomIdParams,
      query: pageQuery,
      responseData: z.object({ messages: z.array(message), hasMore: z.boolean(), nextCursor: z.string().nullable() }),
      errorStatuses: [400, 401, 403, 404],
      handler: async (ctx) => ({ data: await chat.listMessages(ctx.caller, ctx.params.roomId, ctx.query) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${BASE}/chat/messages`,
      tag: TAG,
      summary: 'Send a chat message (members only); pushed as message:new on /chat',
      auth: 'user',
      permission: 'create:chat',
      body: sendMessageBody,
      successStatus: 201,
      responseData: message,
      errorStatuses: [400, 401, 403, 404],
      handler: async (ctx) => ({ status: 201, message: 'Message sent', data: await chat.sendMessage(ctx.caller, ctx.body) }),
    }),
  ];
};
