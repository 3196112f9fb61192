// The public surface of src/pricing/: what other domains and the doors use of it.
export { assertCampaignCurrency } from './currency.js';
export {
  BASE_CPM,
  BUDGET_PRESETS,
  CAMPAIGN_CURRENCY,
  CAMPAIGN_DURATIONS,
  MAX_CAMPAIGN_BUDGET,
  PLATFORM_FEE_PERCENT,
  platformFee,
  totalWithFee,
} from './pricing.js';
export type { BudgetPreset } from './pricing.js';
