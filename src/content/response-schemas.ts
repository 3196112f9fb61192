// The listing items as zod schemas, for the OpenAPI document of `GET /all`, `GET /completed` and
// `GET /feeds` (and the saved-search matches). Declared once: the serialiser (serialise.ts)
// returns these schemas' output types.
import { z } from 'zod';
import { videoSummarySchema } from './video-summary.js';
import { feedItemSchema, languageBlockSchema } from './live/schemas.js';

const commonFields = {
  id: z.string(),
  price: z.number(),
  unit_price: z.string().describe('ISO 4217 code'),
  price_per_area: z.number(),
  area: z.number(),
  unit_area: z.string().describe('m2 or sqft'),
  geo: z.object({ lat: z.number(), long: z.number() }).nullable(),
  hash_tags: z.array(z.string()),
  profit_rate: z.object({ roi: z.number(), roa: z.number() }).nullable(),
  amenities: z.array(z.string()),
  real_estate_info: z.object({
    legal_certificates: z.string().nullable(),
    apartment_type: z.string().nullable(),
    project_status: z.string().nullable(),
  }),
  is_multi_language: z.boolean(),
  video: videoSummarySchema.extend({
    error: z.string().nullable().describe('Why processing failed (the same as error_message; kept for older clients)'),
    error_code: z
      .string()
      .nullable()
      .describe(
        'Why processing failed, as a code (video.error.*: invalid_video, too_long, timed_out, storage_unavailable, processing_failed…); null unless failed',
      ),
    error_message: z.string().nullable().describe('Why processing failed, in words for the owner; null unless failed'),
  }),
  images: z.array(z.object({ id: z.string(), url: z.string().nullable() })),
  reaction_count: z.number().int(),
  comment_count: z.number().int().describe('Comments, replies included'),
  view_count: z.number().int().describe('Counted views (CONTRACT §26); may lag by up to 10 s'),
  status: z.string().describe('processing, completed or failed; to its owner also under_review (held) or removed (CONTRACT §21)'),
  created_at: z.string(),
  updated_at: z.string(),
};

const uploader = z.object({
  user_id: z.string(),
  phone_number: z.string().nullable().describe('Only for holders of read:contact'),
  name: z.string(),
  avatar: z.string().nullable(),
});

/** An item of `GET /all` (and of the saved-search matches). */
export const listingItemSchema = z.object({
  ...commonFields,
  content_info: z.array(languageBlockSchema).describe("Every language block (only `lang`'s when filtered)"),
  uploader,
});

/** An item of `GET /completed`. */
export const completedItemSchema = z.object({
  ...commonFields,
  location: z.string().nullable(),
  content_info: z.array(languageBlockSchema.extend({ location: z.string() })).describe('The block in the x-language language'),
  uploader,
});

export { feedItemSchema };

export type ListingItem = z.output<typeof listingItemSchema>;
export type CompletedItem = z.output<typeof completedItemSchema>;
