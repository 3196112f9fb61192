// {sns_api}/presence: who is online and when they were last seen (CONTRACT §18). The pushes of
// the same facts are `presence` on /chat (realtime/namespaces/chat.ts).
import { z } from 'zod';
import { defineRoute, routeModule } from '../route.js';
import { presenceQuery } from '../../src/presence/index.js';
import { presenceItemSchema } from '../../src/presence/index.js';

export const presenceRoutes = routeModule(['presence'], (_app, services) => [
  defineRoute({
    method: 'GET',
    path: '/sns/api/v1/presence',
    tag: 'sns',
    summary: 'Online state and last_seen_at of up to 100 users (online = a /chat socket on any node)',
    auth: 'user',
    query: presenceQuery,
    responseData: z.object({ users: z.array(presenceItemSchema) }),
    errorStatuses: [400, 401],
    handler: async (ctx) => ({ data: { users: await services.presence.presenceOf(ctx.caller.userId, ctx.query.user_ids) } }),
  }),
]);
