// {api} = /api/v1: targeting, estimation, campaigns, boost, payments and balance (SPEC §4.8,
// CONTRACT §6 and §12). Decisions are in docs/campaigns.md.
import { z } from 'zod';
import { defineRoute, routeModule } from '../route.js';
import { idempotencyHeader, topUpBodySchema } from '../../src/payments/index.js';
import { withoutRawCardData } from '../../src/payments/index.js';
import {
  boostBodySchema,
  createCampaignBodySchema,
  estimateBodySchema,
  listCampaignsQuerySchema,
  locationsQuerySchema,
  processPaymentBodySchema,
} from '../../src/campaigns/index.js';
import {
  boostResultSchema,
  campaignCreatedSchema,
  campaignPageSchema,
  campaignSchema,
  estimationSchema,
  processedPaymentBodySchema,
  targetLocationsSchema,
} from '../../src/campaigns/index.js';
import { balanceSchema, receiptSchema, topUpResultSchema } from '../../src/payments/index.js';

const base = '/api/v1';
const tag = 'campaigns';

const idParams = z.object({ id: z.string().min(1).max(100) });
const postParams = z.object({ postId: z.string().min(1).max(100) });
const transactionParams = z.object({ transactionId: z.string().min(1).max(100) });

/** Replayed answers say so in a header, like most payment APIs do. */
const replayHeaders = (replayed: boolean): Record<string, string> => (replayed ? { 'Idempotent-Replayed': 'true' } : {});

export const campaignRoutes = routeModule(['campaigns', 'payments'], (_app, services) => {
  const { campaigns, payments } = services;

  return [
    defineRoute({
      method: 'GET',
      path: `${base}/targeting/locations`,
      tag,
      auth: 'user',
      summary: 'Search Vietnamese provinces, cities and districts to target (accent-insensitive), with population and a suggested budget',
      query: locationsQuerySchema,
      responseData: targetLocationsSchema,
      errorStatuses: [400, 401, 429],
      handler: async ({ query }) => ({ data: campaigns.targetLocations(query) }),
    }),

    defineRoute({
      method: 'POST',
      path: `${base}/campaigns/estimate`,
      tag,
      auth: 'user',
      permission: 'create:campaign',
      summary: 'Estimate reach, views and engagement of a campaign for one of your videos (stored 24 h as estimation_id)',
      body: estimateBodySchema,
      responseData: estimationSchema,
      errorStatuses: [400, 401, 403, 404, 429],
      handler: async ({ body, caller }) => ({ message: 'Estimation created', data: await campaigns.estimate(caller.userId, body) }),
    }),

    defineRoute({
      method: 'POST',
      path: `${base}/campaigns/create`,
      tag,
      auth: 'user',
      permission: 'create:campaign',
      rateLimits: ['payments'],
      summary: 'Create and pay a campaign from an estimation (Idempotency-Key honoured); it starts at once',
      body: createCampaignBodySchema,
      responseData: campaignCreatedSchema,
      successStatus: 201,
      errorStatuses: [400, 401, 402, 403, 404, 409, 422, 429],
      headers: idempotencyHeader,
      handler: async ({ body, caller, headers }) => {
        const answer = await campaigns.create(caller.userId, body, headers['idempotency-key']);
        return { status: answer.status, message: 'Campaign created and launched', data: answer.data, headers: replayHeaders(answer.replayed) };
      },
    }),

    defineRoute({
      method: 'GET',
      path: `${base}/campaigns`,
      tag,
      auth: 'user',
      permission: 'create:campaign',
      summary: 'List your campaigns, newest first',
      query: listCampaignsQuerySchema,
      responseData: campaignPageSchema,
      errorStatuses: [400, 401, 403, 429],
      handler: async ({ query, caller }) => ({ data: await campaigns.list(caller.userId, query) }),
    }),

    defineRoute({
      method: 'GET',
      path: `${base}/campaigns/:id`,
      tag,
      auth: 'user',
      permission: 'create:campaign',
      summary: 'One of your campaigns (the tracking_url)',
      params: idParams,
      responseData: campaignSchema,
      errorStatuses: [401, 403, 404, 429],
      handler: async ({ params, caller }) => ({ data: await campaigns.get(caller.userId, params.id) }),
    }),

    defineRoute({
      method: 'POST',
      path: `${base}/campaigns/:id/pause`,
      tag,
      auth: 'user',
      permission: 'create:campaign',
      summary: 'Pause an active campaign (owner only)',
      params: idParams,
      responseData: campaignSchema,
      errorStatuses: [401, 403, 404, 409, 429],
      handler: async ({ params, caller }) => {
        const change = await campaigns.pause(caller.userId, params.id);
        return { message: change.message, data: change.campaign };
      },
    }),

    defineRoute({
      method: 'POST',
      path: `${base}/campaigns/:id/resume`,
      tag,
      auth: 'user',
      permission: 'create:campaign',
      summary: 'Resume a paused campaign (owner only); one past its end is completed instead',
      params: idParams,
      responseData: campaignSchema,
      errorStatuses: [401, 403, 404, 409, 429],
      handler: async ({ params, caller }) => {
        const change = await campaigns.resume(caller.userId, params.id);
        return { message: change.message, data: change.campaign };
      },
    }),

    defineRoute({
      method: 'POST',
      path: `${base}/posts/:postId/boost`,
      tag,
      auth: 'user',
      permission: 'create:campaign',
      rateLimits: ['payments'],
      summary: 'Boost one of your posts: estimate, create and pay a campaign from your balance in one step',
      params: postParams,
      body: boostBodySchema,
      responseData: boostResultSchema,
      successStatus: 201,
      errorStatuses: [400, 401, 402, 403, 404, 409, 429],
      headers: idempotencyHeader,
      handler: async ({ params, body, caller, headers }) => {
        const answer = await campaigns.boost(caller.userId, params.postId, body, headers['idempotency-key']);
        return { status: answer.status, message: 'Post boosted', data: answer.data, headers: replayHeaders(answer.replayed) };
      },
    }),

    defineRoute({
      method: 'POST',
      path: `${base}/payments/process`,
      tag,
      auth: 'user',
      permission: 'process:payment',
      rateLimits: ['payments'],
      summary: 'Pay extra budget into one of your running campaigns (amount includes the 5% fee); answer has no success/message',
      body: processPaymentBodySchema,
      responseBody: processedPaymentBodySchema,
      errorStatuses: [400, 401, 402, 403, 404, 409, 429],
      headers: idempotencyHeader,
      handler: async ({ body, caller, headers }) => {
        const answer = await campaigns.payIntoCampaign(caller.userId, body, headers['idempotency-key']);
        return { status: answer.status, raw: { data: answer.data }, headers: replayHeaders(answer.replayed) };
      },
    }),

    defineRoute({
      method: 'GET',
      path: `${base}/payments/:transactionId/receipt`,
      tag,
      auth: 'user',
      summary: 'The receipt of one of your payments',
      params: transactionParams,
      responseData: receiptSchema,
      errorStatuses: [401, 403, 404, 429],
      handler: async ({ params, caller }) => ({ data: await payments.receipt(caller.userId, params.transactionId) }),
    }),

    defineRoute({
      method: 'GET',
      path: `${base}/users/balance`,
      tag,
      auth: 'user',
      summary: 'Your account balance, derived from the ledger of movements',
      responseData: balanceSchema,
      errorStatuses: [401, 429],
      handler: async ({ caller }) => ({ data: await payments.balance(caller.userId) }),
    }),

    defineRoute({
      method: 'POST',
      path: `${base}/users/balance/top-up`,
      tag,
      auth: 'user',
      permission: 'process:payment',
      rateLimits: ['payments'],
      summary: 'Add money to your balance with a provider token (Idempotency-Key honoured)',
      body: withoutRawCardData(topUpBodySchema),
      responseData: topUpResultSchema,
      errorStatuses: [400, 401, 402, 403, 409, 429],
      headers: idempotencyHeader,
      handler: async ({ body, caller, headers }) => {
        const answer = await payments.topUp(caller.userId, body, headers['idempotency-key']);
        return { status: answer.status, message: 'Balance topped up', data: answer.data, headers: replayHeaders(answer.replayed) };
      },
    }),
  ];
});
