// {sns_api} = /sns/api/v1: comments (with replies and reactions). Chat is in chat.ts, presence in presence.ts.
import { z } from 'zod';
import { defineRoute, routeModule } from '../route.js';
import { commentIdParams, contentIdParams, createCommentBody, reactionBody } from '../../src/comments/index.js';
import { pageQuery } from '../../src/shared/cursor.js';
import { commentViewSchema } from '../../src/comments/index.js';

const BASE = '/sns/api/v1';
const TAG = 'sns';

// The same schema as the `comment:new` / `comment:reply` events of the AsyncAPI contract.
const comment = commentViewSchema;
const commentPage = z.object({ comments: z.array(comment), hasMore: z.boolean(), nextCursor: z.string().nullable() });

export const snsRoutes = routeModule(['comments'], (app, services) => {
  const { comments } = services;
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
  ];
});
