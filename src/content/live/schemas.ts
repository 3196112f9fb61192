// The live feed's shapes (CONTRACT §15): what a `/feed` client sends (`content:watch`,
// `area:watch`), what it receives (`feed:new` and `listing:new` carry the feed item of
// `GET /feeds`; `content:stats`), and the socket's language. Also the feed item's response schema
// for the OpenAPI document of `GET /feeds`.
import { z } from 'zod';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '../values.js';

/** Items one socket may watch at once (CONTRACT §15). */
export const MAX_WATCHED_ITEMS = 50;

export const contentWatchPayload = z.strictObject({
  contentIds: z
    .array(z.uuid('must be a content id'))
    .max(MAX_WATCHED_ITEMS, `at most ${MAX_WATCHED_ITEMS} items`)
    .describe(`The items to watch (at most ${MAX_WATCHED_ITEMS}); replaces the previous set, [] stops watching`),
});

export const areaWatchPayload = z.strictObject({
  latitude: z.number().min(-90).max(90).describe('Centre of the map, decimal degrees'),
  longitude: z.number().min(-180).max(180).describe('Centre of the map, decimal degrees'),
  zoom_level: z.number().min(0).max(22).optional().describe('Map zoom (web-mercator), as for GET /completed; 12 when absent'),
});
export type AreaWatch = z.infer<typeof areaWatchPayload>;

export const contentStatsSchema = z.object({
  contentId: z.string().describe('The watched item'),
  reaction_count: z.number().int().describe('Reactions (likes) now'),
  comment_count: z.number().int().describe('Comments now, replies included'),
});
export type ContentStats = z.infer<typeof contentStatsSchema>;

/** One language block of a listing item (the feed's adds `location`). */
export const languageBlockSchema = z.object({
  lang: z.enum(LANGUAGES),
  project_name: z.string(),
  description: z.string(),
  legal_certificates: z.string().nullable(),
  apartment_type: z.string().nullable(),
  project_status: z.string().nullable(),
  address: z.string(),
  extra_description: z.string().nullable(),
});

/** The abridged item of `GET /feeds`, `feed:new` and `listing:new` (ContentSerialiser.feedItem). */
export const feedItemSchema = z.object({
  id: z.string(),
  price: z.number(),
  unit_price: z.string().describe('ISO 4217 code'),
  area: z.number(),
  unit_area: z.string().describe('m2 or sqft'),
  video: z.object({ thumbnail_url: z.string().nullable(), url: z.string().nullable().describe('HLS master playlist') }),
  content_info: z.array(languageBlockSchema.extend({ location: z.string() })).describe('The block in the requested language (else English, else the first)'),
  uploader: z.object({ name: z.string(), avatar: z.string().nullable() }),
  reaction_count: z.number().int(),
  comment_count: z.number().int().describe('Comments, replies included'),
  view_count: z.number().int().describe('Counted views (CONTRACT §26); may lag by up to 10 s'),
  created_at: z.string(),
});
/** What ContentSerialiser.feedItem returns. */
export type FeedItem = z.output<typeof feedItemSchema>;

/** The language of a socket's items: `auth.language` (or the `x-language` header) when en, vi or ko; else English. */
export function socketLanguage(...candidates: unknown[]): Language {
  for (const value of candidates) {
    const wanted = typeof value === 'string' ? value.trim().toLowerCase() : '';
    if ((LANGUAGES as readonly string[]).includes(wanted)) return wanted as Language;
  }
  return DEFAULT_LANGUAGE;
}

/** A newly published item, ready for every socket. */
export interface PublishedItem {
  contentId: string;
  uploaderId: string;
  latitude: number | null;
  longitude: number | null;
  items: Record<Language, FeedItem>;
}
