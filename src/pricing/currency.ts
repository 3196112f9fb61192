import { badRequest } from '../shared/errors.js';
import { CAMPAIGN_CURRENCY } from './pricing.js';

/** Campaigns are priced in VND only; `vnd` is accepted as VND. */
export function assertCampaignCurrency(currency: string, field: string): void {
  if (currency.trim().toUpperCase() !== CAMPAIGN_CURRENCY) {
    throw badRequest('payment.error.unsupported_currency', `Only ${CAMPAIGN_CURRENCY} is supported`, { field, constraint: CAMPAIGN_CURRENCY });
  }
}
