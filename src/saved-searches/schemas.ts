// Request schemas of the saved searches (CONTRACT §16). `filters` takes the query parameters of
// `GET /all` through /all's own schema (the same parsing, the same limits), plus `area`, the
// viewport of `/completed`. Limits SPEC leaves open are listed in docs/feed.md.
import { z } from 'zod';
import { listAllQuery } from '../content/index.js';
import { areaWatchPayload } from '../content/index.js';

/** Saved searches one user may keep (CONTRACT §16). */
export const MAX_SAVED_SEARCHES = 50;
export const NOTIFY_MODES = ['instant', 'daily', 'off'] as const;
export type NotifyMode = (typeof NOTIFY_MODES)[number];

const LIST_FILTERS = ['amenities', 'apartment_type', 'project_status'] as const;

/**
 * /all's parameters as /all parses them. Unknown keys are refused (a misspelt filter would
 * otherwise be dropped and the search match far more than meant).
 */
const allFilters = listAllQuery
  .pick({
    search: true,
    price_from: true,
    price_to: true,
    unit_price: true,
    area_from: true,
    area_to: true,
    unit_area: true,
    amenities: true,
    apartment_type: true,
    project_status: true,
  })
  .extend({ area: areaWatchPayload.optional().describe('A map viewport, as GET /completed takes it') })
  .strict();

/**
 * A list filter may come as /all's comma-separated string or, in JSON, as an array of strings
 * (joined with commas, so both are parsed by the same schema).
 */
const listsAsText = (value: unknown) => {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const copy: Record<string, unknown> = { ...value };
  for (const key of LIST_FILTERS) {
    const list = copy[key];
    if (Array.isArray(list) && list.every((v) => typeof v === 'string')) copy[key] = list.join(',');
  }
  return copy;
};

export const savedSearchFilters = z
  .preprocess(listsAsText, allFilters)
  .superRefine((f, ctx) => {
    const named = Object.values(f).some((v) => v !== undefined && !(Array.isArray(v) && v.length === 0));
    if (!named) ctx.addIssue({ code: 'custom', message: 'name at least one filter', path: [] });
    if (f.price_from !== undefined && f.price_to !== undefined && f.price_from > f.price_to) {
      ctx.addIssue({ code: 'custom', message: 'must not be above price_to', path: ['price_from'] });
    }
    if (f.area_from !== undefined && f.area_to !== undefined && f.area_from > f.area_to) {
      ctx.addIssue({ code: 'custom', message: 'must not be above area_to', path: ['area_from'] });
    }
  })
  .describe('The query parameters of GET /all (lists as a comma-separated string or an array) and an optional map `area`');
export type SavedSearchFilters = z.infer<typeof savedSearchFilters>;

export const createSavedSearchBody = z.strictObject({
  name: z.string().trim().min(1).max(100).describe('A label for the search'),
  filters: savedSearchFilters,
  notify: z.enum(NOTIFY_MODES).describe('instant: a notification per new match; daily: one digest a day; off: none'),
});
export type CreateSavedSearchInput = z.infer<typeof createSavedSearchBody>;

export const savedSearchIdParams = z.object({ id: z.uuid('must be a saved search id') });

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

export const matchesQuery = z.object({
  cursor: z.preprocess(blankToUndefined, z.string().max(512).optional()).describe('next_cursor of the previous page'),
  per_page: z
    .preprocess(blankToUndefined, z.coerce.number().int().min(1).max(100).optional())
    .transform((v) => v ?? 10)
    .describe('Items per page, 1-100 (10)'),
});
export type MatchesQuery = z.infer<typeof matchesQuery>;

export const savedSearchView = z.object({
  id: z.string(),
  name: z.string(),
  filters: z.record(z.string(), z.unknown()).describe('The filters as accepted: numbers, lists as arrays, codes normalised'),
  notify: z.enum(NOTIFY_MODES),
  created_at: z.string(),
});
export type SavedSearchView = z.infer<typeof savedSearchView>;
