// The deterministic performance model behind an estimation (docs/campaigns.md explains it).
// Same inputs, same figures; the only clock read is the timeline's start.
//
//   audience     A = population × age share × online share × interest factor × behaviour factor
//   cpm            = BASE_CPM × targeting premium (narrower targeting costs more per impression)
//   impressions  I = budget / cpm × 1000
//   reach        R = A × (1 − e^(−s·I/A)), s = duration spread (longer campaigns reach more
//                    distinct people with the same impressions; diminishing with duration)
//   views          = I × view rate;  engagement = views × engagement rate;  cpc = cpm / (1000 × ctr)
// Each figure is given as a ±15% range; reach never exceeds the audience.
import { BASE_CPM, platformFee } from '../pricing/index.js';

/** Share of Vietnam's population per age band (2019 census, approximate). */
const AGE_BANDS: { from: number; to: number; share: number }[] = [
  { from: 0, to: 15, share: 0.241 },
  { from: 15, to: 25, share: 0.143 },
  { from: 25, to: 35, share: 0.168 },
  { from: 35, to: 45, share: 0.153 },
  { from: 45, to: 55, share: 0.125 },
  { from: 55, to: 65, share: 0.097 },
  { from: 65, to: 101, share: 0.073 },
];
/** Share of people reachable on social video platforms. */
const ONLINE_SHARE = 0.7;
/** Share of impressions that become a video view (3 s or more). */
const VIEW_RATE = 0.3;
/** Likes, comments, shares and clicks per view, typical of property videos. */
const ENGAGEMENT_RATE = 0.045;
/** Clicks per impression. */
const CLICK_THROUGH_RATE = 0.012;
const RANGE = 0.15;

export interface AudienceInput {
  ageRange: { min: number; max: number };
  interests: string[];
  behaviors: string[];
}

interface EstimateInput {
  budget: number;
  durationDays: number;
  /** People living in the targeted places (overlaps already removed). */
  population: number;
  audience: AudienceInput;
  start: Date;
}

export interface Range {
  min: number;
  max: number;
}

export interface Estimate {
  performance: { reach: Range; views: Range; engagement: Range };
  metrics: { cpm: number; cpc: number; engagement_rate: number };
  timeline: { start_date: string; end_date: string; peak_hours: string[] };
  budget_breakdown: { campaign_budget: number; platform_fee: number; estimated_daily_spend: number; total_amount: number };
  audience: { size: number; population: number; age_share: number };
}

/** Share of the population aged min..max (whole years, both included). */
function ageShare(min: number, max: number): number {
  let share = 0;
  for (const band of AGE_BANDS) {
    const overlap = Math.min(max + 1, band.to) - Math.max(min, band.from);
    if (overlap > 0) share += (band.share * overlap) / (band.to - band.from);
  }
  return Math.min(1, share);
}

/** Interests widen an interest-targeted audience (they are OR-ed), from 25% of people with one to 60% at most. */
function interestFactor(count: number): number {
  return count === 0 ? 1 : Math.min(0.6, 0.25 + 0.05 * (count - 1));
}

/** Behaviours narrow (they are AND-ed): 80% per behaviour, never below 30%. */
function behaviourFactor(count: number): number {
  return Math.max(0.3, 0.8 ** count);
}

function targetingPremium(audience: AudienceInput, share: number): number {
  let premium = 1;
  if (audience.interests.length) premium += 0.15;
  premium += 0.05 * Math.min(audience.behaviors.length, 4);
  if (share < 0.3) premium += 0.1;
  return premium;
}

/** How evenly impressions spread over people: 0.61 for 1 day, 0.83 for 7, 0.99 for 30. */
function durationSpread(days: number): number {
  return 0.55 + 0.45 * (1 - Math.exp(-days / 7));
}

/** Busy hours on Vietnamese social video (local time, UTC+7): younger audiences peak later. */
function peakHours(audience: AudienceInput): string[] {
  if (audience.ageRange.max <= 30) return ['12:00-13:30', '20:00-23:00'];
  if (audience.ageRange.min >= 45) return ['06:30-08:00', '11:30-13:00', '19:00-21:00'];
  return ['07:00-08:30', '11:30-13:00', '19:30-22:30'];
}

const range = (value: number, cap = Infinity): Range => ({
  min: Math.floor(Math.min(value, cap) * (1 - RANGE)),
  max: Math.ceil(Math.min(value * (1 + RANGE), cap)),
});

export function estimateCampaign(input: EstimateInput): Estimate {
  const share = ageShare(input.audience.ageRange.min, input.audience.ageRange.max);
  const audienceSize = Math.max(
    1,
    Math.round(input.population * share * ONLINE_SHARE * interestFactor(input.audience.interests.length) * behaviourFactor(input.audience.behaviors.length)),
  );
  const cpm = Math.round(BASE_CPM * targetingPremium(input.audience, share));
  const impressions = (input.budget / cpm) * 1000;
  const reach = audienceSize * (1 - Math.exp((-durationSpread(input.durationDays) * impressions) / audienceSize));
  const views = impressions * VIEW_RATE;
  const engagement = views * ENGAGEMENT_RATE;
  const end = new Date(input.start.getTime() + input.durationDays * 86_400_000);
  return {
    performance: { reach: range(reach, audienceSize), views: range(views), engagement: range(engagement) },
    metrics: { cpm, cpc: Math.round(cpm / (1000 * CLICK_THROUGH_RATE)), engagement_rate: ENGAGEMENT_RATE },
    timeline: { start_date: input.start.toISOString(), end_date: end.toISOString(), peak_hours: peakHours(input.audience) },
    budget_breakdown: {
      campaign_budget: input.budget,
      platform_fee: platformFee(input.budget),
      estimated_daily_spend: Math.round(input.budget / input.durationDays),
      total_amount: input.budget + platformFee(input.budget),
    },
    audience: { size: audienceSize, population: input.population, age_share: Math.round(share * 1000) / 1000 },
  };
}
