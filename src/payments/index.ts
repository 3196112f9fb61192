// The public surface of src/payments/: what other domains and the doors use of it.
export type { IdempotencyRepository } from './idempotency-repository.js';
export type { ServiceAnswer } from './idempotency.js';
export { withoutRawCardData } from './raw-card-data.js';
export { PAYMENT_METHODS, idempotencyHeader, topUpBodySchema } from './schemas.js';
export type { PaymentLinkView, PaymentService, PaymentView } from './service.js';
export { balanceSchema, paymentLink, paymentView, receiptSchema, topUpResultSchema } from './response-schemas.js';
export type { BalanceSummary, Receipt, TopUpResult } from './response-schemas.js';
export type { LedgerRepository } from './ledger-repository.js';
