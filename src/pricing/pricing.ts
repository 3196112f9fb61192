// The money rules of SPEC §4.8 ("Rules for campaign amounts") and the base prices the estimate
// model and the suggested budgets share. Amounts are integer VND (no minor unit).
export const CAMPAIGN_CURRENCY = 'VND';
export const PLATFORM_FEE_PERCENT = 5;
export const CAMPAIGN_DURATIONS = [1, 3, 7, 14, 30] as const;

export const BUDGET_PRESETS = { basic: 500_000, standard: 1_000_000, premium: 2_000_000 } as const;
export type BudgetPreset = keyof typeof BUDGET_PRESETS;

/** Largest budget one campaign takes (10 billion VND): far beyond any real boost, well inside 2^53. */
export const MAX_CAMPAIGN_BUDGET = 10_000_000_000;

/** Cost per thousand impressions before targeting premiums (VND, about 1.6 USD: a typical Vietnamese social CPM). */
export const BASE_CPM = 40_000;

/** 5% of the budget, rounded half up to a whole dong. */
export function platformFee(budget: number): number {
  return Math.floor((budget * PLATFORM_FEE_PERCENT + 50) / 100);
}

/** What the client pays for a budget: budget plus fee (1,000,000 → 1,050,000). */
export function totalWithFee(budget: number): number {
  return budget + platformFee(budget);
}
