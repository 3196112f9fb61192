// The public surface of src/campaigns/: what other domains and the doors use of it.
export { balanceSchema, boostResultSchema, campaignCreatedSchema, campaignPageSchema, campaignSchema, estimationSchema, processedPaymentBodySchema, receiptSchema, targetLocationsSchema, topUpResultSchema } from './response-schemas.js';
export type { BalanceSummary, Receipt, TopUpResult } from './response-schemas.js';
export { boostBodySchema, createCampaignBodySchema, estimateBodySchema, listCampaignsQuerySchema, locationsQuerySchema, processPaymentBodySchema } from './schemas.js';
