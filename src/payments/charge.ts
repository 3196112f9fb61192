// Taking one payment inside the caller's transaction: `balance` debits the ledger, every other
// method charges the provider's token; either way one `payments` row records it. When anything
// later in the transaction fails, the rows roll back with it (the sandbox provider keeps no
// state; a real provider would void the charge, keyed by the same idempotency key).
import { sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import { AppError, badRequest } from '../shared/errors.js';
import { newId, randomToken } from '../shared/ids.js';
import { debitBalance } from './ledger.js';
import type { PaymentProvider, ProviderMethod } from './provider.js';
import { rowsOf, toIso, type SqlExecutor } from './sql-rows.js';

export const PAYMENT_METHODS = ['card', 'paypal', 'balance', 'crypto'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export type PaymentPurpose = 'campaign_create' | 'campaign_budget' | 'boost' | 'top_up';

export interface PaymentRequest {
  userId: string;
  method: PaymentMethod;
  /** Provider token (`tok_…`); not used for `balance`. */
  token: string | null;
  /** Total charged (budget + fee for campaigns). */
  amount: number;
  budgetAmount: number;
  platformFee: number;
  currency: string;
  purpose: PaymentPurpose;
  campaignId: string | null;
  idempotencyKey: string | null;
  description: string;
  /** Where the token sits in the request body, for error details. */
  tokenField?: string;
}

export interface RecordedPayment {
  transactionId: string;
  receiptId: string;
  status: 'completed';
  amount: number;
  method: PaymentMethod;
  createdAt: string;
}

export function receiptUrl(config: Config, transactionId: string): string {
  return `${config.publicBaseUrl}/api/v1/payments/${transactionId}/receipt`;
}

export async function takePayment(tx: SqlExecutor, provider: PaymentProvider, request: PaymentRequest): Promise<RecordedPayment> {
  const transactionId = newId();
  const receiptId = `rcpt_${randomToken(12)}`;
  let providerName = 'balance';
  let reference: string | null = null;
  if (request.method !== 'balance') {
    const tokenField = request.tokenField ?? 'payment_token';
    if (!request.token) {
      throw badRequest('payment.error.missing_token', 'A payment token is required for this payment method', {
        field: tokenField,
        constraint: 'required',
      });
    }
    let charged;
    try {
      charged = await provider.charge({
        amount: request.amount,
        currency: request.currency,
        method: request.method as ProviderMethod,
        token: request.token,
        idempotencyKey: request.idempotencyKey ?? transactionId,
        description: request.description,
      });
    } catch (error) {
      if (error instanceof AppError && error.status === 400) {
        throw new AppError(400, error.code, error.message, { field: tokenField, constraint: error.details?.constraint ?? 'valid token' });
      }
      throw error;
    }
    providerName = provider.name;
    reference = charged.reference;
  }
  const [row] = await rowsOf<{ created_at: unknown }>(
    tx,
    sql`insert into payments (id, user_id, campaign_id, purpose, method, amount, budget_amount, platform_fee, currency,
                              status, provider, provider_reference, receipt_id)
        values (${transactionId}, ${request.userId}, ${request.campaignId}, ${request.purpose}, ${request.method},
                ${request.amount}, ${request.budgetAmount}, ${request.platformFee}, ${request.currency}, 'completed',
                ${providerName}, ${reference}, ${receiptId})
        returning created_at`,
  );
  if (request.method === 'balance') {
    // Throws 402 insufficient funds when the balance is short; the transaction then rolls back.
    await debitBalance(tx, {
      userId: request.userId,
      kind: 'campaign_charge',
      amount: request.amount,
      currency: request.currency,
      paymentId: transactionId,
      campaignId: request.campaignId,
      description: request.description,
    });
  }
  return {
    transactionId,
    receiptId,
    status: 'completed',
    amount: request.amount,
    method: request.method,
    createdAt: toIso(row.created_at)!,
  };
}
