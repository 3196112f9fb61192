// The payment provider behind every card / PayPal / crypto charge. `sandbox` (CONTRACT §6, the
// only provider so far) charges any token starting with `tok_`, except `tok_decline` (402
// declined) and `tok_insufficient` (402 insufficient funds). A real provider plugs in behind the
// same interface; it receives the request's idempotency key so a retried charge is not doubled.
import { AppError, badRequest } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { Config } from '../config.js';

/** Methods charged through the provider (`balance` is debited from the ledger instead). */
export type ProviderMethod = 'card' | 'paypal' | 'crypto';

interface ChargeRequest {
  amount: number;
  currency: string;
  method: ProviderMethod;
  token: string;
  /** Stable per logical request: the provider must not charge twice for the same key. */
  idempotencyKey: string;
  description: string;
}

interface ChargeResult {
  /** The provider's reference for the charge. */
  reference: string;
}

export interface PaymentProvider {
  readonly name: string;
  /** Charges the token or throws an AppError (402 for a refusal, 400 for a malformed token). */
  charge(request: ChargeRequest): Promise<ChargeResult>;
}

const paymentDeclined = () => new AppError(402, 'payment.error.declined', 'The payment was declined');
export const insufficientFunds = () => new AppError(402, 'payment.error.insufficient_funds', 'Insufficient funds for this payment');

class SandboxPaymentProvider implements PaymentProvider {
  readonly name = 'sandbox';

  async charge(request: ChargeRequest): Promise<ChargeResult> {
    if (!/^tok_[A-Za-z0-9_-]{1,200}$/.test(request.token)) {
      throw badRequest('payment.error.invalid_token', 'payment token must be a provider token starting with tok_', {
        field: 'payment_token',
        constraint: 'starts with tok_',
      });
    }
    if (request.token === 'tok_decline') throw paymentDeclined();
    if (request.token === 'tok_insufficient') throw insufficientFunds();
    return { reference: `sandbox_ch_${newId().replace(/-/g, '')}` };
  }
}

export function createPaymentProvider(config: Config): PaymentProvider {
  switch (config.PAYMENT_PROVIDER) {
    case 'sandbox':
      return new SandboxPaymentProvider();
  }
}
