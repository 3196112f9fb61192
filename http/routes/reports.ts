// {sns_api} = /sns/api/v1/reports: a user reports a content item, a comment, a message or a user
// (CONTRACT §21). The moderators' side (queue, decisions) is in moderation.ts.
import { defineRoute, routeModule } from '../route.js';
import { reportBody, reportView } from '../../src/moderation/index.js';

const BASE = '/sns/api/v1';
const TAG = 'sns';

export const reportRoutes = routeModule(['reports'], (app, services) => [
  defineRoute({
    method: 'POST',
    path: `${BASE}/reports`,
    tag: TAG,
    summary: 'Report a content item, comment, message or user the caller can see (at most 20 a day)',
    auth: 'user',
    body: reportBody,
    successStatus: 201,
    responseData: reportView,
    errorStatuses: [400, 401, 404, 409, 429],
    handler: async (ctx) => ({ status: 201, message: 'Report received', data: await services.reports.report(ctx.caller, ctx.body) }),
  }),
]);
