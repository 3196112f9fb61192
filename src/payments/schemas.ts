import { z } from 'zod';

export const PAYMENT_METHODS = ['card', 'paypal', 'balance', 'crypto'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** Methods a balance can be topped up with (`balance` itself cannot top up a balance). */
export const TOP_UP_METHODS = ['card', 'paypal', 'crypto'] as const;

export const BALANCE_CURRENCY = 'VND';
/** Largest single top-up (1 billion VND). */
const MAX_TOP_UP = 1_000_000_000;

export const topUpBodySchema = z.strictObject({
  amount: z.number().int().positive().max(MAX_TOP_UP),
  payment_token: z.string().min(1).max(255),
  method: z.enum(TOP_UP_METHODS).default('card'),
  currency: z.string().max(8).optional(),
});
export type TopUpBody = z.infer<typeof topUpBodySchema>;

/** Idempotency-Key (CONTRACT §6): optional; its format is checked by the payment rules. */
export const idempotencyHeader = z.object({ 'idempotency-key': z.string().optional() });
