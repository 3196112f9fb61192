// Request schemas of the content endpoints (SPEC §4.3, CONTRACT §13). Limits SPEC leaves open
// (text lengths, list sizes, per_page cap) are ours and listed in docs/content.md.
import { z } from 'zod';
import { DEFAULT_LANGUAGE, isCurrencyCode, LANGUAGES, normaliseAreaUnit, type Language } from './values.js';

export const LIMITS = {
  projectName: 200,
  description: 5000,
  address: 500,
  listingValue: 100,
  hashTags: 30,
  hashTag: 50,
  amenities: 50,
  creationImages: 10,
  editImages: 5,
  fileName: 255,
  maxPrice: 1e15,
  maxArea: 1e9,
  perPageMax: 100,
  pageMax: 10_000,
  searchMax: 200,
  searchTerms: 8,
} as const;

/** CONTRACT §13: trimmed strings of 1-100 characters, stored as sent. */
const listingValue = z.string().trim().min(1).max(LIMITS.listingValue);
const optionalText = (max: number) => z.string().trim().max(max).optional();

const price = z.number().positive('must be greater than 0').max(LIMITS.maxPrice);
const area = z.number().positive('must be greater than 0').max(LIMITS.maxArea);

const unitPrice = z
  .string()
  .trim()
  .transform((v) => v.toUpperCase())
  .refine(isCurrencyCode, 'must be an ISO 4217 currency code');

const unitArea = z
  .string()
  .max(20)
  .transform((v, ctx) => {
    const unit = normaliseAreaUnit(v);
    if (!unit) {
      ctx.addIssue({ code: 'custom', message: 'must be m2 or sqft (m², sqm, ft², sq ft accepted)' });
      return z.NEVER;
    }
    return unit;
  });

const latitude = z.number().min(-90).max(90);
const longitude = z.number().min(-180).max(180);
/** A decimal degree given as a number or a numeric string. */
const degree = (range: z.ZodNumber) =>
  z.union([
    range,
    z
      .string()
      .trim()
      .regex(/^-?\d{1,3}(\.\d+)?$/, 'must be decimal degrees')
      .transform(Number)
      .pipe(range),
  ]);

/** SPEC §2.1: `{lat, long}` or GeoJSON `{type: Point, coordinates: [longitude, latitude]}`. */
const geoInput = z
  .union([z.object({ lat: degree(latitude), long: degree(longitude) }), z.object({ type: z.literal('Point'), coordinates: z.tuple([longitude, latitude]) })])
  .transform((g) => ('lat' in g ? { latitude: g.lat, longitude: g.long } : { latitude: g.coordinates[1], longitude: g.coordinates[0] }));

const languageBlock = z.object({
  lang: z.enum(LANGUAGES),
  project_name: z.string().trim().min(1).max(LIMITS.projectName),
  description: optionalText(LIMITS.description),
  legal_certificates: listingValue.optional(),
  apartment_type: listingValue.optional(),
  project_status: listingValue.optional(),
  address: optionalText(LIMITS.address),
  extra_description: optionalText(LIMITS.description),
});
export type LanguageBlockInput = z.infer<typeof languageBlock>;

const contentInfo = z
  .array(languageBlock)
  .min(1)
  .max(LANGUAGES.length)
  .refine((blocks) => new Set(blocks.map((b) => b.lang)).size === blocks.length, 'one block per language');

const hashTag = z
  .string()
  .trim()
  .regex(new RegExp(`^#[^\\s#]{1,${LIMITS.hashTag}}$`), 'must start with # and have no spaces');

/**
 * Both creation forms of SPEC §4.3. The full form carries `video {original_name, size}` and
 * `real_estate_info`; the upload-flow form carries neither (the video comes with the upload) and
 * may add `profit_rate`, `isMultiLanguage` and per-language listing values.
 */
export const createContentBody = z
  .object({
    price,
    unit_price: unitPrice,
    area,
    unit_area: unitArea,
    video: z
      .object({
        original_name: z.string().trim().min(1).max(LIMITS.fileName),
        size: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
      })
      .optional(),
    real_estate_info: z
      .object({
        legal_certificates: listingValue.optional(),
        apartment_type: listingValue.optional(),
        project_status: listingValue.optional(),
      })
      .optional(),
    content_info: contentInfo,
    hash_tags: z.array(hashTag).max(LIMITS.hashTags).optional(),
    geo: geoInput.optional(),
    amenities: z.array(listingValue).max(LIMITS.amenities).optional(),
    images: z
      .array(
        z.object({
          url: z.url({ protocol: /^https?$/ }).max(2000),
          name: z.string().trim().min(1).max(LIMITS.fileName),
        }),
      )
      .max(LIMITS.creationImages)
      .optional(),
    profit_rate: z.object({ roi: z.number().min(-1000).max(1000), roa: z.number().min(-1000).max(1000) }).optional(),
    isMultiLanguage: z.boolean().optional(),
  })
  .superRefine((body, ctx) => {
    if (body.video && !body.real_estate_info) {
      ctx.addIssue({ code: 'custom', path: ['real_estate_info'], message: 'required with video (full creation form)' });
    }
  });
export type CreateContentInput = z.infer<typeof createContentBody>;

const editLanguage = z.object({
  projectName: z.string().trim().min(1).max(LIMITS.projectName),
  description: z.string().trim().min(1).max(LIMITS.description),
  address: z.string().trim().min(1).max(LIMITS.address),
});

/** SPEC §4.3 edit body and rules: price/area > 0, coordinates required, complete language blocks, ≤ 5 jpg/png images. */
export const editContentBody = z.object({
  price,
  area,
  legalStatus: listingValue.optional(),
  location: z.object({ latitude, longitude }),
  languages: z
    .object({ vi: editLanguage.optional(), en: editLanguage.optional(), ko: editLanguage.optional() })
    .refine((l) => l.vi || l.en || l.ko, 'at least one of vi, en, ko'),
  images: z
    .array(
      z
        .string()
        .trim()
        .min(1)
        .max(LIMITS.fileName)
        .regex(/\.(jpe?g|png)$/i, 'jpg or png only'),
    )
    .max(LIMITS.editImages, `at most ${LIMITS.editImages} images`)
    .optional(),
  amenities: z.array(listingValue).max(LIMITS.amenities).optional(),
});
export type EditContentInput = z.infer<typeof editContentBody>;

export const contentIdParams = z.object({ id: z.uuid('must be a content id') });

// ---- query strings (values arrive as strings; an empty value means "not given") ----

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const opt = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());

const page = opt(z.coerce.number().int().min(1).max(LIMITS.pageMax)).transform((v) => v ?? 1);
const perPage = opt(z.coerce.number().int().min(1).max(LIMITS.perPageMax)).transform((v) => v ?? 10);
const search = opt(z.string().max(LIMITS.searchMax));
const nonNegative = opt(z.coerce.number().min(0).max(LIMITS.maxPrice));
const csv = opt(
  z
    .string()
    .max(2000)
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().max(LIMITS.listingValue)).max(LIMITS.amenities)),
);
/** `YYYY-MM-DD` (a whole UTC day) or a full ISO timestamp. */
const dateBound = (edge: 'start' | 'end') =>
  opt(
    z.string().transform((v, ctx) => {
      const dayOnly = /^\d{4}-\d{2}-\d{2}$/.test(v);
      const at = new Date(dayOnly ? `${v}T00:00:00.000Z` : v);
      if (Number.isNaN(at.getTime()) || !(dayOnly || /^\d{4}-\d{2}-\d{2}T/.test(v))) {
        ctx.addIssue({ code: 'custom', message: 'must be YYYY-MM-DD or an ISO 8601 timestamp' });
        return z.NEVER;
      }
      // An end day includes the whole day.
      return dayOnly && edge === 'end' ? new Date(at.getTime() + 86_400_000 - 1) : at;
    }),
  );

const SORT_COLUMNS = ['created_at', 'updated_at', 'price', 'area', 'price_per_area', 'reaction_count'] as const;
/** `relevance` orders by how well the search matches (CONTRACT §23); without a search, as created_at. */
const ORDER_COLUMNS = [...SORT_COLUMNS, 'relevance'] as const;
/** The facets `/all` counts on request (CONTRACT §23). */
export const FACET_NAMES = ['amenities', 'apartment_type', 'project_status', 'price'] as const;
const facetList = opt(
  z
    .string()
    .max(200)
    .transform((v) => [
      ...new Set(
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ])
    .pipe(z.array(z.enum(FACET_NAMES)).max(FACET_NAMES.length)),
);

/** The centre of the area the caller browses (CONTRACT §26): picks the sponsored item, not the page. */
const browsedCentre = {
  latitude: opt(z.coerce.number().min(-90).max(90)),
  longitude: opt(z.coerce.number().min(-180).max(180)),
};

export const listAllQuery = z.object({
  ...browsedCentre,
  page,
  per_page: perPage,
  search,
  column: opt(z.enum(ORDER_COLUMNS)).transform((v) => v ?? 'created_at'),
  sort: opt(
    z
      .string()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(['asc', 'desc'])),
  ).transform((v) => v ?? 'desc'),
  lang: opt(z.enum(LANGUAGES)),
  price_from: nonNegative,
  price_to: nonNegative,
  unit_price: opt(unitPrice),
  area_from: nonNegative,
  area_to: nonNegative,
  unit_area: opt(unitArea),
  amenities: csv,
  apartment_type: csv,
  project_status: csv,
  created_at_start_date: dateBound('start'),
  created_at_end_date: dateBound('end'),
  facets: facetList,
});
export type ListAllQuery = z.infer<typeof listAllQuery>;

/**
 * `GET /completed/clusters` (CONTRACT §23): a box of at most 180° of longitude west to east (no
 * crossing of the antimeridian: min_lng ≤ max_lng), a zoom 0-20, and the search and filters of
 * `/all`.
 */
export const clustersQuery = listAllQuery
  .pick({
    search: true,
    lang: true,
    price_from: true,
    price_to: true,
    unit_price: true,
    area_from: true,
    area_to: true,
    unit_area: true,
    amenities: true,
    apartment_type: true,
    project_status: true,
    created_at_start_date: true,
    created_at_end_date: true,
  })
  .extend({
    min_lat: z.coerce.number().min(-90).max(90),
    max_lat: z.coerce.number().min(-90).max(90),
    min_lng: z.coerce.number().min(-180).max(180),
    max_lng: z.coerce.number().min(-180).max(180),
    zoom: z.coerce.number().int().min(0).max(20),
  })
  .superRefine((q, ctx) => {
    if (q.min_lat > q.max_lat) ctx.addIssue({ code: 'custom', path: ['min_lat'], message: 'must not be greater than max_lat' });
    if (q.min_lng > q.max_lng) ctx.addIssue({ code: 'custom', path: ['min_lng'], message: 'must not be greater than max_lng' });
    else if (q.max_lng - q.min_lng > 180) ctx.addIssue({ code: 'custom', path: ['max_lng'], message: 'the box may be at most 180° wide' });
  });
export type ClustersQuery = z.infer<typeof clustersQuery>;

export const completedQuery = z
  .object({
    page,
    per_page: perPage,
    search,
    latitude: opt(z.coerce.number().min(-90).max(90)),
    longitude: opt(z.coerce.number().min(-180).max(180)),
    zoom_level: opt(z.coerce.number().min(0).max(22)),
  })
  .superRefine((q, ctx) => {
    const given = [q.latitude, q.longitude].filter((v) => v !== undefined).length;
    if (given === 1)
      ctx.addIssue({ code: 'custom', path: [q.latitude === undefined ? 'latitude' : 'longitude'], message: 'latitude and longitude go together' });
    if (q.zoom_level !== undefined && given === 0) ctx.addIssue({ code: 'custom', path: ['latitude'], message: 'required with zoom_level' });
  });
export type CompletedQuery = z.infer<typeof completedQuery>;

export const feedQuery = z.object({
  cursor: opt(z.string().max(512)),
  per_page: perPage,
  ...browsedCentre,
});

/** `x-language` (SPEC §9): en, vi or ko; anything else (or nothing) means English. */
export const languageHeader = z.object({
  'x-language': z
    .string()
    .optional()
    .transform((value): Language => {
      const wanted = (value ?? '').trim().toLowerCase();
      return (LANGUAGES as readonly string[]).includes(wanted) ? (wanted as Language) : DEFAULT_LANGUAGE;
    }),
});
