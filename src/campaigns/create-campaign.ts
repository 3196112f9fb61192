// POST /campaigns/create: buys a campaign from an estimation. Everything happens in one
// transaction (idempotency claim, estimation lock, campaign row, charge, payment row, ledger row),
// so a refused payment leaves no campaign and no balance movement behind.
import type { AppContext } from '../context.js';
import { badRequest, unprocessable } from '../shared/errors.js';
import { now } from '../shared/clock.js';
import { claimIdempotencyKey, rememberResponse } from '../payments/idempotency.js';
import { receiptUrl, takePayment } from '../payments/charge.js';
import type { PaymentProvider } from '../payments/provider.js';
import { campaignView, insertCampaign, trackingUrl } from './campaign-repository.js';
import { assertCampaignCurrency } from './currency.js';
import { markEstimationUsed, takeEstimation, type StoredTargeting } from './estimations.js';
import { CAMPAIGN_CURRENCY, platformFee, totalWithFee } from './pricing.js';
import type { CreateCampaignBody } from './schemas.js';
import { normaliseAudience, resolveLocationNames } from './targeting.js';
import { assertOwnVideo } from './videos.js';

export interface CampaignCreated {
  campaign_id: string;
  status: string;
  launch_time: string;
  end_time: string;
  tracking_url: string;
  payment: { transaction_id: string; status: 'completed'; amount_charged: number; payment_method: string; receipt_url: string };
}

export interface ServiceAnswer<T> {
  status: number;
  data: T;
  /** True when the answer is the stored one of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

export function amountMismatch(expected: number, field: string) {
  return badRequest('payment.error.amount_mismatch', `The amount must be the budget plus the 5% platform fee: ${expected}`, {
    field,
    constraint: `equals ${expected}`,
  });
}

export async function createCampaign(
  app: AppContext,
  provider: PaymentProvider,
  userId: string,
  body: CreateCampaignBody,
  /** Optional: without one, a retry still cannot pay twice, since an estimation buys one campaign. */
  idempotencyKey: string | null,
): Promise<ServiceAnswer<CampaignCreated>> {
  const config = body.campaign_config;
  // Checks that need no storage come first.
  assertCampaignCurrency(config.budget.currency, 'campaign_config.budget.currency');
  const budget = config.budget.amount;
  const fee = platformFee(budget);
  const total = totalWithFee(budget);
  if (body.payment.amount !== total) throw amountMismatch(total, 'payment.amount');
  const chosenLocations = config.targeting?.locations
    ? resolveLocationNames(config.targeting.locations, 'campaign_config.targeting.locations', false)
    : null;

  return app.db.transaction(async (tx) => {
    if (idempotencyKey) {
      const stored = await claimIdempotencyKey<CampaignCreated>(tx, { userId, key: idempotencyKey, scope: 'campaigns.create', requestBody: body });
      if (stored) return { status: stored.status, data: stored.body, replayed: true };
    }

    const estimation = await takeEstimation(tx, userId, body.estimation_id, body.video_id);
    if (estimation.budget !== budget) {
      throw unprocessable('campaign.error.estimation_mismatch', `The budget differs from the estimation's (${estimation.budget})`, {
        field: 'campaign_config.budget.amount',
        constraint: `equals ${estimation.budget}`,
      });
    }
    if (estimation.durationDays !== config.duration_days) {
      throw unprocessable('campaign.error.estimation_mismatch', `The duration differs from the estimation's (${estimation.durationDays})`, {
        field: 'campaign_config.duration_days',
        constraint: `equals ${estimation.durationDays}`,
      });
    }
    await assertOwnVideo(tx, userId, body.video_id);

    const targeting: StoredTargeting = {
      locations: chosenLocations?.locations ?? estimation.targeting.locations,
      audience: config.targeting?.audience ? normaliseAudience(config.targeting.audience) : estimation.targeting.audience,
      population: chosenLocations?.population ?? estimation.targeting.population,
    };
    const campaign = await insertCampaign(tx, {
      userId,
      videoId: body.video_id,
      estimationId: estimation.id,
      name: config.name,
      source: 'create',
      boostType: null,
      budget,
      platformFee: fee,
      currency: CAMPAIGN_CURRENCY,
      durationDays: config.duration_days,
      targeting,
      estimate: { performance: estimation.result.performance, metrics: estimation.result.metrics },
      launchTime: now(),
    });
    const payment = await takePayment(tx, provider, {
      userId,
      method: body.payment.method,
      token: body.payment.payment_token ?? null,
      amount: total,
      budgetAmount: budget,
      platformFee: fee,
      currency: CAMPAIGN_CURRENCY,
      purpose: 'campaign_create',
      campaignId: campaign.id,
      idempotencyKey,
      description: `Campaign: ${config.name}`,
    });
    await markEstimationUsed(tx, estimation.id);

    const view = campaignView(app.config, campaign);
    const data: CampaignCreated = {
      campaign_id: campaign.id,
      status: view.status,
      launch_time: view.launch_time,
      end_time: view.end_time,
      tracking_url: trackingUrl(app.config, campaign.id),
      payment: {
        transaction_id: payment.transactionId,
        status: payment.status,
        amount_charged: payment.amount,
        payment_method: payment.method,
        receipt_url: receiptUrl(app.config, payment.transactionId),
      },
    };
    if (idempotencyKey) await rememberResponse(tx, userId, idempotencyKey, { status: 201, body: data });
    return { status: 201, data, replayed: false };
  });
}
