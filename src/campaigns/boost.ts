// POST /posts/:postId/boost: the one-tap shortcut. It estimates, creates and pays a campaign for
// one of the caller's posts in a single step, paid from the account balance (budget + 5% fee;
// 402 `payment.error.insufficient_funds` when the balance is short, nothing written).
// `boostType` basic / standard / premium picks the SPEC §4.8 preset budget (500,000 / 1,000,000 /
// 2,000,000 VND; a `budget` sent with a preset must equal it); any other boostType (e.g.
// `custom`) needs `budget`. Locations are names or ids (none: the whole country).
import type { AppContext } from '../context.js';
import { badRequest } from '../shared/errors.js';
import { now } from '../shared/clock.js';
import { claimIdempotencyKey, rememberResponse } from '../payments/idempotency.js';
import { receiptUrl, takePayment } from '../payments/charge.js';
import { balanceSummary } from '../payments/ledger.js';
import type { PaymentProvider } from '../payments/provider.js';
import { campaignView, insertCampaign } from './campaign-repository.js';
import type { ServiceAnswer } from './create-campaign.js';
import { estimateCampaign, type Estimate } from './estimate-model.js';
import { BUDGET_PRESETS, CAMPAIGN_CURRENCY, platformFee, type BudgetPreset } from './pricing.js';
import type { BoostBody } from './schemas.js';
import { normaliseAudience, resolveLocationNames } from './targeting.js';
import { assertOwnVideo } from './videos.js';

export interface BoostResult {
  campaign_id: string;
  post_id: string;
  boost_type: string;
  status: string;
  launch_time: string;
  end_time: string;
  duration_days: number;
  tracking_url: string;
  budget: { amount: number; platform_fee: number; total_amount: number; currency: string };
  estimate: Pick<Estimate, 'performance' | 'metrics' | 'timeline'>;
  payment: { transaction_id: string; status: 'completed'; amount_charged: number; payment_method: 'balance'; receipt_url: string };
  balance: { current_balance: number; currency: string };
}

/** The budget a boost buys: the preset's, or the custom amount. */
export function boostBudget(boostType: string, budget: number | undefined): number {
  const preset = boostType.toLowerCase() as BudgetPreset;
  if (Object.hasOwn(BUDGET_PRESETS, preset)) {
    const amount = BUDGET_PRESETS[preset];
    if (budget !== undefined && budget !== amount) {
      throw badRequest('campaign.error.preset_mismatch', `The ${preset} preset is ${amount} VND`, { field: 'budget', constraint: `equals ${amount} or omitted` });
    }
    return amount;
  }
  if (budget === undefined) {
    throw badRequest('campaign.error.budget_required', 'A custom boost needs a budget (or use boostType basic, standard or premium)', {
      field: 'budget',
      constraint: 'required',
    });
  }
  return budget;
}

export async function boostPost(
  app: AppContext,
  provider: PaymentProvider,
  userId: string,
  postId: string,
  body: BoostBody,
  idempotencyKey: string | null,
): Promise<ServiceAnswer<BoostResult>> {
  const budget = boostBudget(body.boostType, body.budget);
  const fee = platformFee(budget);
  const boostType = body.boostType.toLowerCase();
  const targeting = resolveLocationNames(body.targetAudience?.location ?? [], 'targetAudience.location', true);
  const audience = normaliseAudience({ age_range: body.targetAudience?.ageRange, interests: body.targetAudience?.interests });

  const outcome = await app.db.transaction(async (tx): Promise<ServiceAnswer<BoostResult>> => {
    if (idempotencyKey) {
      const stored = await claimIdempotencyKey<BoostResult>(tx, { userId, key: idempotencyKey, scope: `posts.boost:${postId}`, requestBody: body });
      if (stored) return { status: stored.status, data: stored.body, replayed: true };
    }
    await assertOwnVideo(tx, userId, postId, 'postId');
    const launch = now();
    const estimate = estimateCampaign({ budget, durationDays: body.duration, population: targeting.population, audience, start: launch });
    const campaign = await insertCampaign(tx, {
      userId,
      videoId: postId,
      estimationId: null,
      name: `Boost (${boostType}) ${launch.toISOString().slice(0, 10)}`,
      source: 'boost',
      boostType,
      budget,
      platformFee: fee,
      currency: CAMPAIGN_CURRENCY,
      durationDays: body.duration,
      targeting: { locations: targeting.locations, audience, population: targeting.population },
      estimate: { performance: estimate.performance, metrics: estimate.metrics },
      launchTime: launch,
    });
    const payment = await takePayment(tx, provider, {
      userId,
      method: 'balance',
      token: null,
      amount: budget + fee,
      budgetAmount: budget,
      platformFee: fee,
      currency: CAMPAIGN_CURRENCY,
      purpose: 'boost',
      campaignId: campaign.id,
      idempotencyKey,
      description: `Boost of post ${postId}`,
    });
    const view = campaignView(app.config, campaign);
    const data: BoostResult = {
      campaign_id: campaign.id,
      post_id: postId,
      boost_type: boostType,
      status: view.status,
      launch_time: view.launch_time,
      end_time: view.end_time,
      duration_days: view.duration_days,
      tracking_url: view.tracking_url,
      budget: { amount: budget, platform_fee: fee, total_amount: budget + fee, currency: CAMPAIGN_CURRENCY },
      estimate: { performance: estimate.performance, metrics: estimate.metrics, timeline: estimate.timeline },
      payment: {
        transaction_id: payment.transactionId,
        status: payment.status,
        amount_charged: payment.amount,
        payment_method: 'balance',
        receipt_url: receiptUrl(app.config, payment.transactionId),
      },
      // Filled in after commit with the balance as it is then.
      balance: { current_balance: 0, currency: CAMPAIGN_CURRENCY },
    };
    if (idempotencyKey) await rememberResponse(tx, userId, idempotencyKey, { status: 201, body: data });
    return { status: 201, data, replayed: false };
  });
  const balance = await balanceSummary(app.database, userId, CAMPAIGN_CURRENCY);
  return { ...outcome, data: { ...outcome.data, balance: { current_balance: balance.current_balance, currency: balance.currency } } };
}
