// {api} = /api/v1: targeting, estimation, campaigns, boost, payments and balance (SPEC §4.8,
// CONTRACT §6 and §12). Decisions are in docs/campaigns.md.
import { z } from 'zod';
import { defineRoute, type RouteModule } from '../route.js';
import { badRequest } from '../../src/shared/errors.js';
import { readIdempotencyKey } from '../../src/payments/idempotency.js';
import { balanceSummary } from '../../src/payments/ledger.js';
import { getReceipt } from '../../src/payments/receipts.js';
import { BALANCE_CURRENCY, topUpBalance, topUpBodySchema } from '../../src/payments/top-up.js';
import { withoutRawCardData } from '../../src/payments/raw-card-data.js';
import { searchLocations, SUPPORTED_COUNTRIES } from '../../src/targeting/locations.js';
import { suggestedBudget } from '../../src/targeting/suggested-budget.js';
import {
  boostBodySchema, createCampaignBodySchema, estimateBodySchema, listCampaignsQuerySchema, processPaymentBodySchema,
} from '../../src/campaigns/schemas.js';
import { createEstimation } from '../../src/campaigns/estimations.js';
import { createCampaign } from '../../src/campaigns/create-campaign.js';
import { pauseCampaign, resumeCampaign } from '../../src/campaigns/campaign-states.js';
import { processCampaignPayment } from '../../src/campaigns/campaign-payments.js';
import { boostPost } from '../../src/campaigns/boost.js';
import { campaignView, listOwnCampaigns, readOwnCampaign } from '../../src/campaigns/campaign-repository.js';

const base = '/api/v1';
const tag = 'campaigns';

const locationsQuery = z.object({
  query: z.string().trim().min(1).max(100),
  type: z.enum(['city', 'district', 'all']).default('all'),
  country: z.string().trim().toUpperCase().default('VN'),
  limit: z.coerce.number().int().min(1).max(50).default(10),
});
const idParams = z.object({ id: z.string().min(1).max(100) });
const postParams = z.object({ postId: z.string().min(1).max(100) });
const transactionParams = z.object({ transactionId: z.string().min(1).max(100) });

/** Replayed answers say so, like most payment APIs do. */
const replayHeaders = (replayed: boolean): Record<string, string> => (replayed ? { 'Idempotent-Replayed': 'true' } : {});

export const campaignRoutes: RouteModule = (app, services) => {
  const provider = services.paymentProvider;

  return [
    defineRoute({
      method: 'GET', path: `${base}/targeting/locations`, tag, auth: 'user',
      summary: 'Search Vietnamese provinces, cities and districts to target (accent-insensitive), with population and a suggested budget',
      query: locationsQuery, errorStatuses: [400, 401, 429],
      handler: async ({ query }) => {
        if (!(SUPPORTED_COUNTRIES as readonly string[]).includes(query.country)) {
          throw badRequest('targeting.error.unsupported_country', `Only ${SUPPORTED_COUNTRIES.join(', ')} is supported`, {
            field: 'country',
            constraint: SUPPORTED_COUNTRIES.join(', '),
          });
        }
        const found = searchLocations({ query: query.query, type: query.type, limit: query.limit });
        return {
          data: {
            locations: found.map((l) => ({
              id: l.id,
              name: l.name,
              type: l.type,
              population: l.population,
              suggested_budget: suggestedBudget(l.population),
              parent_id: l.parentId,
              country: query.country,
            })),
          },
        };
      },
    }),

    defineRoute({
      method: 'POST', path: `${base}/campaigns/estimate`, tag, auth: 'user', permission: 'create:campaign',
      summary: 'Estimate reach, views and engagement of a campaign for one of your videos (stored 24 h as estimation_id)',
      body: estimateBodySchema, errorStatuses: [400, 401, 403, 404, 429],
      handler: async ({ body, caller }) => ({ message: 'Estimation created', data: await createEstimation(app, caller.userId, body) }),
    }),

    defineRoute({
      method: 'POST', path: `${base}/campaigns/create`, tag, auth: 'user', permission: 'create:campaign', rateLimits: ['payments'],
      summary: 'Create and pay a campaign from an estimation (Idempotency-Key honoured); it starts at once',
      body: createCampaignBodySchema, successStatus: 201, errorStatuses: [400, 401, 402, 403, 404, 409, 422, 429],
      handler: async ({ body, caller, headers }) => {
        const answer = await createCampaign(app, provider, caller.userId, body, readIdempotencyKey(headers));
        return { status: answer.status, message: 'Campaign created and launched', data: answer.data, headers: replayHeaders(answer.replayed) };
      },
    }),

    defineRoute({
      method: 'GET', path: `${base}/campaigns`, tag, auth: 'user', permission: 'create:campaign',
      summary: 'List your campaigns, newest first', query: listCampaignsQuerySchema, errorStatuses: [400, 401, 403, 429],
      handler: async ({ query, caller }) => {
        const { rows, total } = await listOwnCampaigns(app.db, caller.userId, { status: query.status, page: query.page, perPage: query.per_page });
        return {
          data: {
            campaigns: rows.map((r) => campaignView(app.config, r)),
            pagination: { page: query.page, per_page: query.per_page, total, total_pages: Math.ceil(total / query.per_page) },
          },
        };
      },
    }),

    defineRoute({
      method: 'GET', path: `${base}/campaigns/:id`, tag, auth: 'user', permission: 'create:campaign',
      summary: 'One of your campaigns (the tracking_url)', params: idParams, errorStatuses: [401, 403, 404, 429],
      handler: async ({ params, caller }) => ({ data: campaignView(app.config, await readOwnCampaign(app.db, caller.userId, params.id)) }),
    }),

    defineRoute({
      method: 'POST', path: `${base}/campaigns/:id/pause`, tag, auth: 'user', permission: 'create:campaign',
      summary: 'Pause an active campaign (owner only)', params: idParams, errorStatuses: [401, 403, 404, 409, 429],
      handler: async ({ params, caller }) => {
        const change = await pauseCampaign(app, caller.userId, params.id);
        return { message: change.message, data: change.campaign };
      },
    }),

    defineRoute({
      method: 'POST', path: `${base}/campaigns/:id/resume`, tag, auth: 'user', permission: 'create:campaign',
      summary: 'Resume a paused campaign (owner only); one past its end is completed instead', params: idParams,
      errorStatuses: [401, 403, 404, 409, 429],
      handler: async ({ params, caller }) => {
        const change = await resumeCampaign(app, caller.userId, params.id);
        return { message: change.message, data: change.campaign };
      },
    }),

    defineRoute({
      method: 'POST', path: `${base}/posts/:postId/boost`, tag, auth: 'user', permission: 'create:campaign', rateLimits: ['payments'],
      summary: 'Boost one of your posts: estimate, create and pay a campaign from your balance in one step',
      params: postParams, body: boostBodySchema, successStatus: 201, errorStatuses: [400, 401, 402, 403, 404, 409, 429],
      handler: async ({ params, body, caller, headers }) => {
        const answer = await boostPost(app, provider, caller.userId, params.postId, body, readIdempotencyKey(headers));
        return { status: answer.status, message: 'Post boosted', data: answer.data, headers: replayHeaders(answer.replayed) };
      },
    }),

    defineRoute({
      method: 'POST', path: `${base}/payments/process`, tag, auth: 'user', permission: 'process:payment', rateLimits: ['payments'],
      summary: 'Pay extra budget into one of your running campaigns (amount includes the 5% fee); answer has no success/message',
      body: processPaymentBodySchema, errorStatuses: [400, 401, 402, 403, 404, 409, 429],
      handler: async ({ body, caller, headers }) => {
        const answer = await processCampaignPayment(app, provider, caller.userId, body, readIdempotencyKey(headers));
        return { status: answer.status, raw: { data: answer.data }, headers: replayHeaders(answer.replayed) };
      },
    }),

    defineRoute({
      method: 'GET', path: `${base}/payments/:transactionId/receipt`, tag, auth: 'user',
      summary: 'The receipt of one of your payments', params: transactionParams, errorStatuses: [401, 403, 404, 429],
      handler: async ({ params, caller }) => ({ data: await getReceipt(app.database, caller.userId, params.transactionId) }),
    }),

    defineRoute({
      method: 'GET', path: `${base}/users/balance`, tag, auth: 'user',
      summary: 'Your account balance, derived from the ledger of movements', errorStatuses: [401, 429],
      handler: async ({ caller }) => ({ data: await balanceSummary(app.database, caller.userId, BALANCE_CURRENCY) }),
    }),

    defineRoute({
      method: 'POST', path: `${base}/users/balance/top-up`, tag, auth: 'user', permission: 'process:payment', rateLimits: ['payments'],
      summary: 'Add money to your balance with a provider token (Idempotency-Key honoured)',
      body: withoutRawCardData(topUpBodySchema), errorStatuses: [400, 401, 402, 403, 409, 429],
      handler: async ({ body, caller, headers }) => {
        const answer = await topUpBalance(app, provider, caller.userId, body, readIdempotencyKey(headers));
        return { status: answer.status, message: 'Balance topped up', data: answer.data, headers: replayHeaders(answer.replayed) };
      },
    }),
  ];
};
