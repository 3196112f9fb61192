// Playback reports and per-item analytics (CONTRACT §26; docs/analytics.md).
import { z } from 'zod';
import { defineRoute, routeModule } from '../route.js';
import { addressKey } from '../address-key.js';
import { analyticsData, analyticsQuery, playbackAnswer, playbackReportBody } from '../../src/views/index.js';

const base = '/content/api/v1/contents';
const tag = 'content';
const idParams = z.strictObject({ id: z.string().max(100).describe('Content id') });

export const viewRoutes = routeModule(['views'], (_app, services) => {
  const { views } = services;
  return [
    defineRoute({
      method: 'POST',
      path: `${base}/:id/views`,
      tag,
      auth: 'optional',
      summary: 'Report a playback: at its start, at least every 10 s while it plays, and when it stops. Without a token the viewer is the client address',
      params: idParams,
      body: playbackReportBody,
      responseData: playbackAnswer,
      errorStatuses: [400, 401, 404, 429, 500],
      handler: async ({ optionalCaller, params, body, ip }) => ({
        message: 'Playback reported',
        data: await views.report(
          optionalCaller,
          optionalCaller ? { userId: optionalCaller.userId } : { address: addressKey(ip) },
          params.id.toLowerCase(),
          body,
        ),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/:id/analytics`,
      tag,
      auth: 'user',
      summary:
        "An item's views, watch time, retention, sources, impressions and leads per UTC day (owner, or read:analytics; 404 for anyone else). May lag by up to 60 s",
      params: idParams,
      query: analyticsQuery,
      responseData: analyticsData,
      errorStatuses: [400, 401, 404, 500],
      handler: async ({ caller, params, query }) => ({
        message: 'Analytics',
        data: await views.analytics(caller, params.id.toLowerCase(), query.start_date, query.end_date),
      }),
    }),
  ];
});
