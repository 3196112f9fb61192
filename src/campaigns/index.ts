// The public surface of src/campaigns/: what other domains and the doors use of it.
export {
  boostResultSchema,
  campaignCreatedSchema,
  campaignPageSchema,
  campaignSchema,
  estimationSchema,
  processedPaymentBodySchema,
  targetLocationsSchema,
} from './response-schemas.js';
export {
  boostBodySchema,
  createCampaignBodySchema,
  estimateBodySchema,
  listCampaignsQuerySchema,
  locationsQuerySchema,
  processPaymentBodySchema,
} from './schemas.js';
export { sponsoredMarkSchema } from './sponsored-slot.js';
export { campaignProgressSchema } from './delivery-view.js';
export type { DeliveryView } from './delivery-view.js';
