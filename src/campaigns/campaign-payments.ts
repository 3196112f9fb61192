// POST /payments/process pays extra budget into a running campaign the caller owns. `amount` is
// the total charged, the 5% platform fee included: the campaign's budget grows by amount / 1.05
// (1,050,000 charged → 1,000,000 budget + 50,000 fee). A completed or ended campaign takes no
// more money (409). One transaction: claim, lock, charge, payment row, ledger row, budget.
import type { AppContext } from '../context.js';
import { conflict } from '../shared/errors.js';
import { now } from '../shared/clock.js';
import { claimIdempotencyKey, rememberResponse } from '../payments/idempotency.js';
import { receiptUrl, takePayment } from '../payments/charge.js';
import type { PaymentProvider } from '../payments/provider.js';
import { addCampaignBudget, lockOwnCampaign } from './campaign-repository.js';
import { assertCampaignCurrency } from './currency.js';
import type { ServiceAnswer } from './create-campaign.js';
import { CAMPAIGN_CURRENCY, PLATFORM_FEE_PERCENT } from './pricing.js';
import type { ProcessPaymentBody } from './schemas.js';

export interface PaymentResult {
  transaction_id: string;
  status: 'completed';
  amount_charged: number;
  payment_method: string;
  receipt: { id: string; url: string; email_sent: boolean };
  campaign_status: string;
}

/** Splits a total that includes the fee into budget + fee (they always add up to the total). */
export function splitTotal(total: number): { budget: number; fee: number } {
  const fee = Math.round((total * PLATFORM_FEE_PERCENT) / (100 + PLATFORM_FEE_PERCENT));
  return { budget: total - fee, fee };
}

export async function processCampaignPayment(
  app: AppContext,
  provider: PaymentProvider,
  userId: string,
  body: ProcessPaymentBody,
  idempotencyKey: string | null,
): Promise<ServiceAnswer<PaymentResult>> {
  assertCampaignCurrency(body.currency, 'currency');
  const { budget, fee } = splitTotal(body.amount);
  return app.db.transaction(async (tx) => {
    if (idempotencyKey) {
      const stored = await claimIdempotencyKey<PaymentResult>(tx, { userId, key: idempotencyKey, scope: 'payments.process', requestBody: body });
      if (stored) return { status: stored.status, data: stored.body, replayed: true };
    }
    const campaign = await lockOwnCampaign(tx, userId, body.campaign_id);
    const ended = new Date(campaign.ends_at as Date).getTime() <= now().getTime();
    if (campaign.status === 'completed' || ended) {
      throw conflict('campaign.error.invalid_state', 'This campaign has ended and takes no more payments', { field: 'campaign_id', constraint: 'active or paused' });
    }
    const payment = await takePayment(tx, provider, {
      userId,
      method: body.payment_method,
      token: body.payment_details?.card_token ?? null,
      amount: body.amount,
      budgetAmount: budget,
      platformFee: fee,
      currency: CAMPAIGN_CURRENCY,
      purpose: 'campaign_budget',
      campaignId: campaign.id,
      idempotencyKey,
      description: `Campaign budget: ${campaign.name}`,
      tokenField: 'payment_details.card_token',
    });
    const updated = await addCampaignBudget(tx, campaign.id, budget, fee);
    const data: PaymentResult = {
      transaction_id: payment.transactionId,
      status: payment.status,
      amount_charged: payment.amount,
      payment_method: payment.method,
      receipt: { id: payment.receiptId, url: receiptUrl(app.config, payment.transactionId), email_sent: false },
      campaign_status: updated.status,
    };
    if (idempotencyKey) await rememberResponse(tx, userId, idempotencyKey, { status: 200, body: data });
    return { status: 200, data, replayed: false };
  });
}
