// {sns_api} = /sns/api/v1: the notification inbox and Web Push subscriptions (CONTRACT §17).
import { z } from 'zod';
import { defineRoute, routeModule } from '../route.js';
import { inboxQuery, markReadBody } from '../../src/notifications/index.js';
import { notificationViewSchema } from '../../src/notifications/index.js';
import { pushSubscriptionBody, pushUnsubscribeBody } from '../../src/push/index.js';

const BASE = '/sns/api/v1';
const TAG = 'notifications';

const notification = notificationViewSchema;
const unread = z.object({ unread_count: z.number().int().describe('Unread notifications of the caller') });

export const notificationRoutes = routeModule(['notifications', 'push'], (_app, services) => {
  const { notifications, push } = services;
  return [
    defineRoute({
      method: 'GET',
      path: `${BASE}/notifications`,
      tag: TAG,
      summary: "The caller's notifications, newest first (cursor paging), with the unread count",
      auth: 'user',
      query: inboxQuery,
      responseData: z.object({
        notifications: z.array(notification),
        unread_count: z.number().int(),
        hasMore: z.boolean(),
        nextCursor: z.string().nullable(),
      }),
      errorStatuses: [400, 401, 429],
      handler: async (ctx) => ({ data: await notifications.list(ctx.caller.userId, ctx.query) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${BASE}/notifications/read`,
      tag: TAG,
      summary: "Mark notifications read: those in ids, or all of the caller's when ids is absent",
      auth: 'user',
      body: markReadBody,
      responseData: unread,
      errorStatuses: [400, 401, 413, 415, 429],
      handler: async (ctx) => ({ message: 'Notifications marked read', data: await notifications.markRead(ctx.caller.userId, ctx.body.ids) }),
    }),
    defineRoute({
      method: 'GET',
      path: `${BASE}/push/vapid-public-key`,
      tag: TAG,
      summary: 'The VAPID public key to subscribe a browser for Web Push (applicationServerKey)',
      auth: 'user',
      responseData: z.object({ publicKey: z.string().describe('Uncompressed P-256 public key, base64url') }),
      errorStatuses: [401, 429],
      handler: async () => ({ data: { publicKey: await push.publicKey() } }),
    }),
    defineRoute({
      method: 'POST',
      path: `${BASE}/push/subscriptions`,
      tag: TAG,
      summary: "Register a browser's push subscription for the caller (at most 10; a new one replaces the oldest)",
      auth: 'user',
      body: pushSubscriptionBody,
      successStatus: 201,
      responseData: z.object({ endpoint: z.string() }),
      errorStatuses: [400, 401, 413, 415, 429],
      handler: async (ctx) => ({ status: 201, message: 'Push subscription saved', data: await push.subscribe(ctx.caller.userId, ctx.body) }),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${BASE}/push/subscriptions`,
      tag: TAG,
      summary: "Remove one of the caller's push subscriptions by endpoint",
      auth: 'user',
      body: pushUnsubscribeBody,
      responseData: z.object({ endpoint: z.string() }),
      errorStatuses: [400, 401, 404, 413, 415, 429],
      handler: async (ctx) => ({ message: 'Push subscription removed', data: await push.unsubscribe(ctx.caller.userId, ctx.body.endpoint) }),
    }),
  ];
});
