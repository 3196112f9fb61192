// The `data` of creating a content item and of its detail (`GET`/`PUT {api}/content/:id`) as zod
// schemas, for the OpenAPI document and the typed client; the service and the serialiser return
// these schemas' output types (declared once).
import { z } from 'zod';
import { listingItemSchema } from './response-schemas.js';

export const createdContentSchema = z.object({
  id: z.string(),
  price: z.number(),
  unit_price: z.string().describe('ISO 4217 code'),
  area: z.number(),
  unit_area: z.enum(['m2', 'sqft']),
  status: z.string().describe('processing until the video is transcoded'),
  created_at: z.string(),
});

const detailBlock = z.object({
  project_name: z.string(),
  description: z.string(),
  address: z.string(),
  legal_certificates: z.string().nullable(),
  apartment_type: z.string().nullable(),
  project_status: z.string().nullable(),
  extra_description: z.string().nullable(),
});

export const contentDetailSchema = listingItemSchema.omit({ video: true, images: true, content_info: true, uploader: true }).extend({
  video: z.object({
    thumbnail_url: z.string().nullable(),
    url: z.string().nullable().describe('HLS playlist; null until transcoded'),
    duration: z.number().nullable(),
    resolution: z.string().nullable(),
    status: z.string(),
    error_code: z
      .string()
      .nullable()
      .describe(
        'Why processing failed, as a code (video.error.invalid_video, too_long, resolution_too_high, timed_out, storage_unavailable, processing_failed…); null unless status is failed',
      ),
    error_message: z.string().nullable().describe("Why processing failed, in plain words (never a tool's output); null unless status is failed"),
  }),
  images: z.array(z.object({ id: z.string(), name: z.string(), url: z.string().nullable() })),
  content_info: z
    .object({ en: detailBlock.nullable(), vi: detailBlock.nullable(), ko: detailBlock.nullable() })
    .describe('Keyed by language; null where the item has no block in it'),
  uploader: z.object({ name: z.string(), phone: z.string().nullable().describe('Only for holders of read:contact') }),
  moderation_note: z.string().nullable().optional().describe("Only when status is removed (seen by the owner): the moderator's note"),
});

export type CreatedContent = z.output<typeof createdContentSchema>;
export type ContentDetail = z.output<typeof contentDetailSchema>;
/** One language's block of a detail. */
export type DetailBlock = z.output<typeof detailBlock>;
