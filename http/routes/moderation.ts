// /api/v1/moderation (CONTRACT §21): what staff holding moderate:content read and do.
// One list of routes, by area; each area's routes go under its heading.
import { defineRoute, type RouteModule } from '../route.js';
import { auditPageView, auditQuery } from '../../src/moderation/schemas.js';

const base = '/api/v1/moderation';
const tag = 'moderation';

export const moderationRoutes: RouteModule = (_app, services) => {
  const { auditLog } = services;
  return [
    // --- Audit log ------------------------------------------------------------------------------
    defineRoute({
      method: 'GET', path: `${base}/audit`, tag, auth: 'user', permission: 'moderate:content',
      summary: 'The append-only log of moderation and role actions, newest first (cursor paging), by actor and/or target',
      query: auditQuery, responseData: auditPageView, errorStatuses: [400, 401, 403, 429],
      handler: async ({ query }) => ({ message: 'Audit log', data: await auditLog.list(query) }),
    }),

    // --- Reports, queue and decisions -----------------------------------------------------------
  ];
};
