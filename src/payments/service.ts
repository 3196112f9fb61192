// Money: taking a payment (inside the caller's transaction), the account balance and its top-ups,
// and receipts. `balance` payments debit the ledger; every other method charges the provider's
// token; either way one `payments` row records it. When anything later in the transaction fails,
// the rows roll back with it (the sandbox provider keeps no state; a real provider would void the
// charge, keyed by the same idempotency key).
import type { Config } from '../config.js';
import type { DatabaseHandle, Queryable } from '../db/client.js';
import { assertCampaignCurrency } from '../pricing/index.js';
import { CAMPAIGN_CURRENCY } from '../pricing/index.js';
import { AppError, badRequest, forbidden, notFound } from '../shared/errors.js';
import { isUuid, newId, randomToken } from '../shared/ids.js';
import { withIdempotency, type IdempotencyClaim, type ServiceAnswer, type StoredResponse } from './idempotency.js';
import type { IdempotencyRepository } from './idempotency-repository.js';
import type { LedgerEntry, LedgerRepository } from './ledger-repository.js';
import type { PaymentRepository } from './payment-repository.js';
import { insufficientFunds, type PaymentProvider, type ProviderMethod } from './provider.js';
import { TOP_UP_METHODS, type PaymentMethod, type TopUpBody } from './schemas.js';
import type { BalanceSummary, Receipt, TopUpResult } from './response-schemas.js';

type PaymentPurpose = 'campaign_create' | 'campaign_budget' | 'boost' | 'top_up';

interface PaymentRequest {
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
  idempotencyKey: string | undefined;
  description: string;
  /** Where the token sits in the request body, for error details. */
  tokenField?: string;
}

interface RecordedPayment {
  transactionId: string;
  receiptId: string;
  status: 'completed';
  amount: number;
  method: PaymentMethod;
}

interface PaymentFields {
  transaction_id: string;
  status: 'completed';
  amount_charged: number;
  payment_method: string;
}

/** The payment part of a top-up or budget payment answer (CONTRACT §6 describes the receipt there). */
export interface PaymentView extends PaymentFields {
  receipt: { id: string; url: string; email_sent: boolean };
}

/** The payment part of a campaign purchase (create, boost): CONTRACT §6 gives only the receipt's address there. */
export interface PaymentLinkView extends PaymentFields {
  receipt_url: string;
}

export class PaymentService {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly config: Config,
    private readonly payments: PaymentRepository,
    private readonly ledger: LedgerRepository,
    private readonly idempotencyKeys: IdempotencyRepository,
    private readonly provider: PaymentProvider,
  ) {}

  /** Runs a money move once per Idempotency-Key, inside `tx` (idempotency.ts); campaigns use it too. */
  withIdempotency<T>(tx: Queryable, claim: IdempotencyClaim, run: () => Promise<StoredResponse<T>>): Promise<ServiceAnswer<T>> {
    return withIdempotency(this.idempotencyKeys.in(tx), claim, run);
  }

  receiptUrl(transactionId: string): string {
    return `${this.config.publicBaseUrl}/api/v1/payments/${transactionId}/receipt`;
  }

  paymentView(payment: RecordedPayment): PaymentView {
    // No receipt e-mail is sent yet; the field is in the contract for when one is.
    return { ...this.paymentFields(payment), receipt: { id: payment.receiptId, url: this.receiptUrl(payment.transactionId), email_sent: false } };
  }

  paymentLinkView(payment: RecordedPayment): PaymentLinkView {
    return { ...this.paymentFields(payment), receipt_url: this.receiptUrl(payment.transactionId) };
  }

  private paymentFields(payment: RecordedPayment): PaymentFields {
    return { transaction_id: payment.transactionId, status: payment.status, amount_charged: payment.amount, payment_method: payment.method };
  }

  /** Takes one payment inside `tx`: throws (and writes nothing) when the provider or the balance refuses. */
  async takePayment(tx: Queryable, request: PaymentRequest): Promise<RecordedPayment> {
    const transactionId = newId();
    const receiptId = `rcpt_${randomToken(12)}`;
    let providerName = 'balance';
    let reference: string | null = null;
    if (request.method !== 'balance') {
      reference = await this.charge(request, request.method, transactionId);
      providerName = this.provider.name;
    }
    await this.payments.in(tx).insertCompleted({
      id: transactionId,
      userId: request.userId,
      campaignId: request.campaignId,
      purpose: request.purpose,
      method: request.method,
      amount: request.amount,
      budgetAmount: request.budgetAmount,
      platformFee: request.platformFee,
      currency: request.currency,
      provider: providerName,
      providerReference: reference,
      receiptId,
    });
    if (request.method === 'balance') {
      // Throws 402 insufficient funds when the balance is short; the transaction then rolls back.
      await this.debitBalance(tx, {
        userId: request.userId,
        kind: 'campaign_charge',
        amount: request.amount,
        currency: request.currency,
        paymentId: transactionId,
        campaignId: request.campaignId,
        description: request.description,
      });
    }
    return { transactionId, receiptId, status: 'completed', amount: request.amount, method: request.method };
  }

  /** Charges the request's token with the provider; returns the provider's reference. */
  private async charge(request: PaymentRequest, method: ProviderMethod, transactionId: string): Promise<string> {
    const tokenField = request.tokenField ?? 'payment_token';
    if (!request.token) {
      throw badRequest('payment.error.missing_token', 'A payment token is required for this payment method', {
        field: tokenField,
        constraint: 'required',
      });
    }
    try {
      const charged = await this.provider.charge({
        amount: request.amount,
        currency: request.currency,
        method,
        token: request.token,
        idempotencyKey: request.idempotencyKey ?? transactionId,
        description: request.description,
      });
      return charged.reference;
    } catch (error) {
      if (error instanceof AppError && error.status === 400) {
        throw new AppError(400, error.code, error.message, { field: tokenField, constraint: error.details?.constraint ?? 'valid token' });
      }
      throw error;
    }
  }

  /** Takes `amount` from the balance or throws 402 `payment.error.insufficient_funds` (nothing written). */
  private async debitBalance(tx: Queryable, entry: LedgerEntry): Promise<void> {
    const ledger = this.ledger.in(tx);
    // Two concurrent debits of one user must not both spend the same money.
    await ledger.lockUser(entry.userId);
    if ((await ledger.completedBalance(entry.userId)) < entry.amount) throw insufficientFunds();
    await ledger.append({ ...entry, amount: -entry.amount });
  }

  async balance(userId: string): Promise<BalanceSummary> {
    const totals = await this.ledger.totals(userId);
    return {
      current_balance: totals.completed,
      currency: CAMPAIGN_CURRENCY,
      pending_amount: totals.pending,
      last_updated: totals.last?.toISOString() ?? null,
      transactions_count: totals.count,
      top_up_methods: [...TOP_UP_METHODS],
    };
  }

  /** A payment's receipt, for its owner only. */
  async receipt(userId: string, transactionId: string): Promise<Receipt> {
    const missing = () => notFound('payment.error.not_found', 'No such payment', { field: 'transactionId', constraint: 'exists' });
    if (!isUuid(transactionId)) throw missing();
    const row = await this.payments.findById(transactionId);
    if (!row) throw missing();
    if (row.user_id !== userId) throw forbidden('payment.error.forbidden', 'This payment belongs to another user');
    return {
      receipt_id: row.receipt_id,
      transaction_id: row.id,
      status: row.status,
      purpose: row.purpose,
      payment_method: row.method,
      amount_charged: row.amount,
      campaign_budget: row.budget_amount,
      platform_fee: row.platform_fee,
      currency: row.currency,
      campaign_id: row.campaign_id,
      created_at: row.created_at.toISOString(),
    };
  }

  /** Adds money to the balance: the provider charges the token, one ledger row (+amount) and one payment row record it. */
  async topUp(userId: string, body: TopUpBody, idempotencyKey: string | undefined): Promise<ServiceAnswer<TopUpResult>> {
    // The balance only ever pays for campaigns, so it is held in their currency.
    if (body.currency !== undefined) assertCampaignCurrency(body.currency, 'currency');
    const outcome = await this.database.transaction((tx) =>
      this.withIdempotency<PaymentView>(tx, { userId, key: idempotencyKey, scope: 'balance.top_up', requestBody: body }, async () => {
        const ledger = this.ledger.in(tx);
        await ledger.lockUser(userId);
        const payment = await this.takePayment(tx, {
          userId,
          method: body.method,
          token: body.payment_token,
          amount: body.amount,
          budgetAmount: 0,
          platformFee: 0,
          currency: CAMPAIGN_CURRENCY,
          purpose: 'top_up',
          campaignId: null,
          idempotencyKey,
          description: 'Balance top-up',
        });
        await ledger.append({
          userId,
          kind: 'top_up',
          amount: body.amount,
          currency: CAMPAIGN_CURRENCY,
          paymentId: payment.transactionId,
          description: 'Balance top-up',
        });
        return { status: 200, data: this.paymentView(payment) };
      }),
    );
    // The balance is always read fresh: on a replay it shows the balance now, not then.
    return { ...outcome, data: { ...outcome.data, balance: await this.balance(userId) } };
  }
}
