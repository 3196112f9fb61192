// /api/v1/moderation (CONTRACT §21): what staff holding moderate:content read and do.
// One list of routes, by area; each area's routes go under its heading.
import { defineRoute, routeModule } from '../route.js';
import { auditPageView, auditQuery } from '../../src/audit/index.js';
import { queuePage, queueQuery, resolveBody, resolveView, restoreView, targetParams, userIdParams } from '../../src/moderation/index.js';

const base = '/api/v1/moderation';
const tag = 'moderation';

export const moderationRoutes = routeModule(['auditLog', 'moderation'], (_app, services) => {
  const { auditLog, moderation } = services;
  return [
    // --- Audit log ------------------------------------------------------------------------------
    defineRoute({
      method: 'GET',
      path: `${base}/audit`,
      tag,
      auth: 'user',
      permission: 'moderate:content',
      summary: 'The append-only log of moderation and role actions, newest first (cursor paging), by actor and/or target',
      query: auditQuery,
      responseData: auditPageView,
      errorStatuses: [400, 401, 403, 429],
      handler: async ({ query }) => ({ message: 'Audit log', data: await auditLog.list(query) }),
    }),

    // --- Reports, queue and decisions -----------------------------------------------------------
    // (Users report through POST /sns/api/v1/reports: reports.ts.)
    defineRoute({
      method: 'GET',
      path: `${base}/reports`,
      tag,
      auth: 'user',
      permission: 'moderate:content',
      summary: 'The moderation queue: one entry per reported target, oldest first, with its snapshot, counts and reports',
      query: queueQuery,
      responseData: queuePage,
      errorStatuses: [400, 401, 403, 429],
      handler: async ({ caller, query }) => ({ message: 'Moderation queue', data: await moderation.queue(caller, query) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${base}/targets/:target_type/:target_id/resolve`,
      tag,
      auth: 'user',
      permission: 'moderate:content',
      summary:
        'Decide on a target (dismiss, remove, suspend_user, warn): its open reports are resolved, the author told. 403 when its author holds a permission the caller lacks; 409 on the last active admin (but dismiss)',
      params: targetParams,
      body: resolveBody,
      responseData: resolveView,
      errorStatuses: [400, 401, 403, 404, 409, 429],
      handler: async ({ caller, params, body }) => ({
        message: 'Resolved',
        data: await moderation.resolve(caller, params.target_type, params.target_id, body),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: `${base}/users/:userId/restore`,
      tag,
      auth: 'user',
      permission: 'moderate:content',
      summary: "Lift a user's suspension and release what it held (403 when the user holds a permission the caller lacks)",
      params: userIdParams,
      responseData: restoreView,
      errorStatuses: [401, 403, 404, 429],
      handler: async ({ caller, params }) => ({ message: 'Restored', data: await moderation.restore(caller, params.userId) }),
    }),
  ];
});
