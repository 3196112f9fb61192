// The `data` of the campaign and targeting answers as zod schemas, for the OpenAPI
// document and the typed client; the services answer with these schemas' output types
// (declared once).
import { z } from 'zod';
import { paymentLink, paymentView } from '../payments/index.js';
import { deliverySchema } from './delivery-view.js';

const range = z.object({ min: z.number(), max: z.number() });
const performance = z.object({ reach: range, views: range, engagement: range });
const metrics = z.object({ cpm: z.number(), cpc: z.number(), engagement_rate: z.number() });
const timeline = z.object({
  start_date: z.string(),
  end_date: z.string(),
  peak_hours: z.array(z.string()).describe('Hours of the day (HH:MM) when the audience watches most'),
});
const audience = z.object({
  ageRange: z.object({ min: z.number(), max: z.number() }),
  interests: z.array(z.string()),
  behaviors: z.array(z.string()),
});

export const targetLocationsSchema = z.object({
  locations: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      type: z.string().describe('city or district'),
      population: z.number(),
      suggested_budget: z.object({ min: z.number(), max: z.number() }).describe('VND'),
      parent_id: z.string().nullable().describe('The city of a district'),
      country: z.string(),
    }),
  ),
});

export const estimationSchema = z.object({
  estimation_id: z.string().describe('Valid until expires_at; give it to POST /campaigns/create'),
  video_id: z.string(),
  performance,
  metrics,
  timeline,
  budget_breakdown: z.object({
    campaign_budget: z.number(),
    platform_fee: z.number(),
    estimated_daily_spend: z.number(),
    total_amount: z.number().describe('Budget plus the platform fee'),
  }),
  audience: z.object({
    size: z.number(),
    population: z.number().describe('People living in the targeted places'),
    age_share: z.number().describe('Share of that population in the age range (0–1)'),
  }),
  expires_at: z.string(),
});

const storedTargeting = z.object({
  locations: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      type: z.enum(['city', 'district', 'radius']),
      population: z.number().describe('People counted for this entry'),
      radius_km: z.number().optional(),
    }),
  ),
  audience,
  population: z.number(),
});

export const campaignSchema = z.object({
  campaign_id: z.string(),
  name: z.string(),
  video_id: z.string(),
  status: z.enum(['active', 'paused', 'completed']),
  source: z.enum(['create', 'boost']),
  boost_type: z.string().nullable(),
  budget: z.object({ amount: z.number(), currency: z.string() }),
  platform_fee: z.number(),
  total_amount: z.number(),
  duration_days: z.number(),
  targeting: storedTargeting,
  estimate: z.object({ performance, metrics }).nullable(),
  launch_time: z.string(),
  end_time: z.string(),
  paused_at: z.string().nullable(),
  completion_reason: z.enum(['ended', 'budget_spent']).nullable().describe('Why it completed: its duration ended, or its budget was spent'),
  delivery: deliverySchema,
  completed_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  tracking_url: z.string(),
});

export const campaignPageSchema = z.object({
  campaigns: z.array(campaignSchema),
  pagination: z.object({ page: z.number(), per_page: z.number(), total: z.number(), total_pages: z.number() }),
});

export const campaignCreatedSchema = z.object({
  campaign_id: z.string(),
  status: z.string(),
  launch_time: z.string(),
  end_time: z.string(),
  tracking_url: z.string(),
  payment: paymentLink,
});

export const boostResultSchema = z.object({
  campaign_id: z.string(),
  post_id: z.string(),
  boost_type: z.string(),
  status: z.string(),
  launch_time: z.string(),
  end_time: z.string(),
  duration_days: z.number(),
  tracking_url: z.string(),
  budget: z.object({ amount: z.number(), platform_fee: z.number(), total_amount: z.number(), currency: z.string() }),
  estimate: z.object({ performance, metrics, timeline }),
  payment: paymentLink,
  balance: z.object({ current_balance: z.number(), currency: z.string() }).describe('After the charge'),
});

/** The whole answer of `POST /payments/process`: SPEC gives it without `success` and `message`. */
export const processedPaymentBodySchema = z.object({
  data: z.object({ ...paymentView, campaign_status: z.string().describe("The campaign's status after the payment") }),
});

// The types the campaign service answers with (declared once, here).
export type TargetLocationView = z.output<typeof targetLocationsSchema>['locations'][number];
export type EstimationView = z.output<typeof estimationSchema>;
export type CampaignView = z.output<typeof campaignSchema>;
export type CampaignPage = z.output<typeof campaignPageSchema>;
export type CampaignCreated = z.output<typeof campaignCreatedSchema>;
export type BoostResult = z.output<typeof boostResultSchema>;
export type PaymentResult = z.output<typeof processedPaymentBodySchema>['data'];
