import { z } from 'zod';

export const PAYMENT_METHODS = ['card', 'paypal', 'balance', 'crypto'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** Methods a balance can be topped up with (`balance` itself cannot top up a balance). */
export const TOP_UP_METHODS = ['card', 'paypal', 'crypto'] as const;

/** Largest single top-up (1 billion VND). */
const MAX_TOP_UP = 1_000_000_000;

export const topUpBodySchema = z.strictObject({
  amount: z.number().int().positive().max(MAX_TOP_UP),
  payment_token: z.string().min(1).max(255),
  method: z.enum(TOP_UP_METHODS).default('card'),
  currency: z.string().max(8).optional(),
});
export type TopUpBody = z.infer<typeof topUpBodySchema>;

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Idempotency-Key (CONTRACT §6): optional, 1-255 printable ASCII characters. Refused here, before
 * any work starts, so a malformed key never reaches a service; an empty header means no key.
 */
export const idempotencyHeader = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .transform((key) => (key === '' ? undefined : key))
    .pipe(z.string().regex(IDEMPOTENCY_KEY, '1-255 printable ASCII characters').optional()),
});
