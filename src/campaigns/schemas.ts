// Request schemas of the campaign endpoints (SPEC §4.8). Objects are lenient (unknown fields are
// dropped) except where a field could carry money or card data, which the raw-card guard covers.
import { z } from 'zod';
import { PAYMENT_METHODS } from '../payments/index.js';
import { withoutRawCardData } from '../payments/index.js';
import { CAMPAIGN_DURATIONS, MAX_CAMPAIGN_BUDGET, totalWithFee } from '../pricing/index.js';

const id = z.string().trim().min(1).max(100);
const label = z.string().trim().min(1).max(100);

const durationSchema = z
  .number()
  .int()
  .refine((d) => (CAMPAIGN_DURATIONS as readonly number[]).includes(d), { message: `must be one of ${CAMPAIGN_DURATIONS.join(', ')}` });

const budgetSchema = z.object({
  amount: z.number().int().positive().max(MAX_CAMPAIGN_BUDGET),
  currency: z.string().trim().min(1).max(8),
});

const age = z.number().int().min(13).max(100);
const ageRangeSchema = z.object({ min: age, max: age }).refine((r) => r.min <= r.max, { message: 'min must not exceed max', path: ['max'] });

const audienceSchema = z.object({
  age_range: ageRangeSchema.optional(),
  interests: z.array(label).max(30).optional(),
  behaviors: z.array(label).max(30).optional(),
});

const locationRefSchema = z.object({
  id,
  name: z.string().max(200).optional(),
  type: z.enum(['city', 'district', 'radius']),
  radius_km: z.number().positive().max(100).optional(),
});

export const estimateBodySchema = z.object({
  video_id: id,
  budget: budgetSchema,
  duration_days: durationSchema,
  targeting: z
    .object({
      locations: z.array(locationRefSchema).max(50).default([]),
      audience: audienceSchema.optional(),
    })
    .default({ locations: [] }),
});
export type EstimateBody = z.infer<typeof estimateBodySchema>;

export const createCampaignBodySchema = withoutRawCardData(
  z.object({
    estimation_id: id,
    video_id: id,
    campaign_config: z.object({
      name: z.string().trim().min(1).max(120),
      budget: budgetSchema,
      duration_days: durationSchema,
      targeting: z
        .object({
          locations: z.array(id).max(50).optional(),
          audience: audienceSchema.optional(),
        })
        .optional(),
    }),
    payment: z.object({
      method: z.enum(PAYMENT_METHODS),
      amount: z.number().int().positive().max(totalWithFee(MAX_CAMPAIGN_BUDGET)),
      payment_token: z.string().min(1).max(255).optional(),
    }),
  }),
);
export type CreateCampaignBody = z.infer<typeof createCampaignBodySchema>;

/** `"18-35"`, `"18 - 35"` or `"25+"` (up to 100), as some clients send the range. */
const ageRangeText = z
  .string()
  .trim()
  .regex(/^\d{1,3}\s*(?:-\s*\d{1,3}|\+)$/, 'must look like "18-35" or "25+"')
  .transform((text) => {
    const [min, max] = text.endsWith('+') ? [parseInt(text, 10), 100] : text.split('-').map((p) => parseInt(p.trim(), 10));
    return { min, max };
  })
  .pipe(ageRangeSchema);

export const boostBodySchema = withoutRawCardData(
  z.object({
    boostType: z.string().trim().min(1).max(50),
    duration: durationSchema,
    targetAudience: z
      .object({
        location: z.array(label).max(50).optional(),
        ageRange: z.union([ageRangeSchema, ageRangeText]).optional(),
        interests: z.array(label).max(30).optional(),
      })
      .optional(),
    budget: z.number().int().positive().max(MAX_CAMPAIGN_BUDGET).optional(),
  }),
);
export type BoostBody = z.infer<typeof boostBodySchema>;

export const processPaymentBodySchema = withoutRawCardData(
  z.object({
    campaign_id: id,
    payment_method: z.enum(PAYMENT_METHODS),
    amount: z.number().int().positive().max(totalWithFee(MAX_CAMPAIGN_BUDGET)),
    currency: z.string().trim().min(1).max(8),
    payment_details: z
      .object({
        card_token: z.string().min(1).max(255).optional(),
        billing_address: z.object({ country: z.string().max(100).optional(), city: z.string().max(100).optional() }).optional(),
      })
      .optional(),
  }),
);
export type ProcessPaymentBody = z.infer<typeof processPaymentBodySchema>;

const CAMPAIGN_STATUSES = ['active', 'paused', 'completed'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const listCampaignsQuerySchema = z.object({
  status: z.enum(CAMPAIGN_STATUSES).optional(),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  per_page: z.coerce.number().int().min(1).max(50).default(10),
});
export type ListCampaignsQuery = z.infer<typeof listCampaignsQuerySchema>;

export const locationsQuerySchema = z.object({
  query: z.string().trim().min(1).max(100),
  type: z.enum(['city', 'district', 'all']).default('all'),
  country: z.string().trim().toUpperCase().default('VN'),
  limit: z.coerce.number().int().min(1).max(50).default(10),
});
export type LocationsQuery = z.infer<typeof locationsQuerySchema>;
