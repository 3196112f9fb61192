// Adding money to the balance: the provider charges the token, and one ledger row (+amount) and
// one payment row record it, in one transaction (with the Idempotency-Key claim when sent).
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { badRequest } from '../shared/errors.js';
import { appendLedgerEntry, balanceSummary, lockBalance, TOP_UP_METHODS, type BalanceSummary } from './ledger.js';
import { claimIdempotencyKey, rememberResponse } from './idempotency.js';
import { receiptUrl, takePayment } from './charge.js';
import type { PaymentProvider } from './provider.js';

export const BALANCE_CURRENCY = 'VND';
/** Largest single top-up (1 billion VND). */
export const MAX_TOP_UP = 1_000_000_000;

export const topUpBodySchema = z.strictObject({
  amount: z.number().int().positive().max(MAX_TOP_UP),
  payment_token: z.string().min(1).max(255),
  method: z.enum(TOP_UP_METHODS).default('card'),
  currency: z.string().max(8).optional(),
});
export type TopUpBody = z.infer<typeof topUpBodySchema>;

interface TopUpPayment {
  transaction_id: string;
  status: 'completed';
  amount_charged: number;
  payment_method: string;
  receipt: { id: string; url: string; email_sent: boolean };
}

export interface TopUpResult extends TopUpPayment {
  balance: BalanceSummary;
}

export async function topUpBalance(
  app: AppContext,
  provider: PaymentProvider,
  userId: string,
  body: TopUpBody,
  idempotencyKey: string | null,
): Promise<{ status: number; data: TopUpResult; replayed: boolean }> {
  if (body.currency !== undefined && body.currency.toUpperCase() !== BALANCE_CURRENCY) {
    throw badRequest('payment.error.unsupported_currency', 'Only VND is supported', { field: 'currency', constraint: 'VND' });
  }
  const outcome = await app.db.transaction(async (tx) => {
    if (idempotencyKey) {
      const stored = await claimIdempotencyKey<TopUpPayment>(tx, { userId, key: idempotencyKey, scope: 'balance.top_up', requestBody: body });
      if (stored) return { status: stored.status, data: stored.body, replayed: true };
    }
    await lockBalance(tx, userId);
    const payment = await takePayment(tx, provider, {
      userId,
      method: body.method,
      token: body.payment_token,
      amount: body.amount,
      budgetAmount: 0,
      platformFee: 0,
      currency: BALANCE_CURRENCY,
      purpose: 'top_up',
      campaignId: null,
      idempotencyKey,
      description: 'Balance top-up',
    });
    await appendLedgerEntry(tx, {
      userId,
      kind: 'top_up',
      amount: body.amount,
      currency: BALANCE_CURRENCY,
      paymentId: payment.transactionId,
      description: 'Balance top-up',
    });
    const data: TopUpPayment = {
      transaction_id: payment.transactionId,
      status: payment.status,
      amount_charged: payment.amount,
      payment_method: payment.method,
      receipt: { id: payment.receiptId, url: receiptUrl(app.config, payment.transactionId), email_sent: false },
    };
    if (idempotencyKey) await rememberResponse(tx, userId, idempotencyKey, { status: 200, body: data });
    return { status: 200, data, replayed: false };
  });
  // The balance is always read fresh: on a replay it shows the balance now, not then.
  const balance = await balanceSummary(app.database, userId, BALANCE_CURRENCY);
  return { ...outcome, data: { ...outcome.data, balance } };
}
