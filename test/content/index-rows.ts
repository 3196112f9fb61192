// Generated items and `/all` queries for the listing index in this process (no database): rows
// as the index's loader reads them (derived columns made by the service's own deriveColumns),
// with facet values common and rare, several languages, units, places, uploaders and states,
// and random queries over every condition an index query has. Used by
// search-facets-bits.test.ts and bench/facet-counts.ts.
import { deriveColumns, type LanguageBlock } from '../../src/content/derived-columns.js';
import type { IndexQuery, IndexRow, ListingFilters } from '../../src/content/search-index/index-types.js';
import type { FacetName } from '../../src/content/search-index/index-types.js';
import type { Language } from '../../src/content/values.js';

/** A deterministic generator, so a failure repeats. */
export function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

const WORDS = ['sunrise', 'riverside', 'garden', 'tower', 'vinhomes', 'masteri', 'lake', 'park', 'ocean', 'central', 'green', 'royal', 'sky', 'palm', 'harbor'];
/** Common amenities first (most items have one of them), then rare ones, some differing only in case. */
const AMENITIES = [
  'pool',
  'gym',
  'parking',
  'security',
  'garden',
  'elevator',
  'playground',
  'Pool',
  'sauna',
  'tennis',
  'spa',
  'rooftop',
  'bbq',
  'cinema',
  'library',
  'jacuzzi',
];
/** Rare amenities: a few items each. */
const rareAmenity = (next: () => number) => `feature ${Math.floor(next() * 60)}`;
const TYPES = ['Apartment', 'villa', 'Townhouse', 'penthouse', 'studio', 'shophouse'];
const STATUSES = ['handed_over', 'Under_Construction', 'planned', 'sold_out'];
const LANGUAGES: Language[] = ['en', 'vi', 'ko'];
const UNIT_PRICES = ['VND', 'USD', 'KRW'];
const UNIT_AREAS = ['m2', 'sqft'] as const;
const CITIES = [
  { lat: 21.03, lng: 105.85 },
  { lat: 10.78, lng: 106.7 },
  { lat: 37.57, lng: 126.98 },
  { lat: -17.7, lng: 179.6 },
];
const DAY_US = 86_400_000_000;
const START_US = Date.UTC(2025, 0, 1) * 1000;

export interface RowSource {
  next: () => number;
  uploaders: string[];
}

export function rowSource(seed: number, uploaders: number): RowSource {
  return { next: random(seed), uploaders: Array.from({ length: uploaders }, (_, i) => `user-${String(i).padStart(4, '0')}`) };
}

/** A longitude past ±180° brought back into range (around Fiji items lie on both sides). */
const wrapped = (lng: number) => (lng > 180 ? lng - 360 : lng);
const pick = <T>(next: () => number, values: readonly T[]): T => values[Math.floor(next() * values.length)];
/** Skewed towards the first values. */
const pickSkewed = <T>(next: () => number, values: readonly T[]): T => values[Math.floor(next() * next() * values.length)];

/**
 * An item: `version` changes what an edit writes (a later version rarely has the `sauna` that
 * many have at first, so its value set turns from bits into a list as items change).
 */
export function generatedRow(source: RowSource, id: string, version = 0): IndexRow {
  const { next } = source;
  const langs = LANGUAGES.filter((lang, i) => next() < [0.8, 0.6, 0.15][i]);
  if (langs.length === 0) langs.push('vi');
  const type = next() < 0.9 ? pickSkewed(next, TYPES) : null;
  const status = next() < 0.85 ? pickSkewed(next, STATUSES) : null;
  const blocks: LanguageBlock[] = langs.map((lang) => ({
    lang,
    project_name: `${pick(next, WORDS)} ${pick(next, WORDS)}`,
    description: `${pick(next, WORDS)} ${pick(next, WORDS)} ${pick(next, WORDS)}`,
    legal_certificates: null,
    // Another type in another language now and then: an item may have two.
    apartment_type: next() < 0.1 ? pick(next, TYPES) : type,
    project_status: status,
    address: `${Math.floor(next() * 300)} ${pick(next, WORDS)} street`,
    extra_description: null,
  }));
  const amenities = AMENITIES.filter((a, i) => (a === 'sauna' && version > 0 ? next() < 0.005 : next() < 0.7 / (i + 1)));
  if (next() < 0.1) amenities.push(rareAmenity(next));
  const hashTags = [pick(next, WORDS)];
  const derived = deriveColumns(blocks, {}, hashTags, amenities);
  // Prices over several powers of ten (every bucket), now and then below 1.
  const price = next() < 0.01 ? 0.5 : Math.round(10 ** (5 + next() * 6));
  const area = Math.round(20 + next() * 480);
  const city = pick(next, CITIES);
  const placed = next() < 0.9;
  const createdUs = START_US + Math.floor(next() * 700) * DAY_US + Math.floor(next() * 1000);
  const roll = next();
  return {
    id,
    uploader_id: pickSkewed(next, source.uploaders),
    status: roll < 0.8 ? 'completed' : roll < 0.9 ? 'processing' : 'under_review',
    price,
    unit_price: pickSkewed(next, UNIT_PRICES),
    area,
    unit_area: pick(next, UNIT_AREAS),
    price_per_area: price / area,
    latitude: placed ? city.lat + (next() - 0.5) * 2 : null,
    longitude: placed ? wrapped(city.lng + (next() - 0.5) * 2) : null,
    hash_tags: hashTags,
    profit_rate: null,
    amenities,
    real_estate_info: {},
    is_multi_language: langs.length > 1,
    content_info: blocks,
    video: {
      original_name: null,
      size: null,
      resolution: null,
      duration: null,
      status: 'completed',
      original_path: null,
      playlist_path: null,
      thumbnail_path: null,
      error: null,
    },
    images: [],
    reaction_count: Math.floor(next() * 50),
    comment_count: 0,
    view_count: 0,
    created_at: new Date(createdUs / 1000),
    updated_at: new Date(createdUs / 1000),
    uploader_given_name: 'Test',
    uploader_family_name: 'User',
    uploader_picture: null,
    uploader_phone: '',
    moderation_note: null,
    created_us: createdUs,
    updated_us: createdUs,
    langs: derived.langs,
    facet_apartment_types: derived.apartmentTypes,
    facet_project_statuses: derived.projectStatuses,
    search_text: derived.searchText,
  };
}

const FACETS: FacetName[] = ['amenities', 'apartment_type', 'project_status', 'price'];

/** Which case a value is asked in: as stored, lower or upper case. */
const anyCase = (next: () => number, value: string) => (next() < 0.3 ? value.toUpperCase() : next() < 0.5 ? value.toLowerCase() : value);

/**
 * A random query over every condition, and a random non-empty set of facets; `viewports` false
 * leaves out the map area (as `/all`, the one listing with facets, never has one).
 */
export function randomQuery(source: RowSource, viewports = true): { query: IndexQuery; names: FacetName[] } {
  const { next, uploaders } = source;
  const chance = (p: number) => next() < p;
  const someOf = <T>(values: readonly T[], most: number) => Array.from({ length: 1 + Math.floor(next() * most) }, () => pickSkewed(next, values));
  const filters: ListingFilters = {};
  if (chance(0.35)) {
    const a = Math.round(10 ** (5 + next() * 6));
    const b = Math.round(10 ** (5 + next() * 6));
    if (chance(0.7)) filters.price_from = Math.min(a, b);
    if (chance(0.7)) filters.price_to = Math.max(a, b);
  }
  if (chance(0.2)) {
    filters.area_from = Math.round(next() * 250);
    filters.area_to = filters.area_from + Math.round(next() * 300);
  }
  if (chance(0.15)) {
    const from = START_US / 1000 + Math.floor(next() * 600) * (DAY_US / 1000);
    filters.created_at_start_date = new Date(from);
    if (chance(0.5)) filters.created_at_end_date = new Date(from + Math.floor(next() * 200) * (DAY_US / 1000));
  }
  if (chance(0.25)) filters.lang = pick(next, LANGUAGES);
  if (chance(0.15)) filters.unit_price = pick(next, [...UNIT_PRICES, 'EUR']);
  if (chance(0.1)) filters.unit_area = pick(next, UNIT_AREAS);
  if (chance(0.4)) filters.amenities = chance(0.05) ? ['hammam'] : chance(0.1) ? [rareAmenity(next)] : someOf(AMENITIES, 3);
  if (chance(0.35)) filters.apartment_type = someOf([...TYPES, 'castle'], 2).map((t) => anyCase(next, t));
  if (chance(0.3)) filters.project_status = someOf(STATUSES, 2).map((s) => anyCase(next, s));
  const visibilityRoll = next();
  const someone = () => (chance(0.1) ? 'user-nobody' : pickSkewed(next, uploaders));
  const query: IndexQuery = {
    visibility: visibilityRoll < 0.4 ? { kind: 'published' } : visibilityRoll < 0.8 ? { kind: 'published-or-own', userId: someone() } : { kind: 'every' },
    filters,
  };
  if (chance(0.3)) query.hidden = new Set(Array.from({ length: 1 + Math.floor(next() * 3) }, someone));
  if (chance(0.3)) query.search = chance(0.05) ? '!!' : chance(0.05) ? 'zzqx' : someOf(WORDS, 2).join(' ');
  if (viewports && chance(0.15)) {
    const city = pick(next, CITIES);
    const span = 0.2 + next() * 2;
    // Near Fiji a box across the antimeridian now and then.
    query.viewport = chance(0.2)
      ? { south: -19, north: -16, west: 179.5, east: -179.5 }
      : { south: city.lat - span / 2, north: city.lat + span / 2, west: city.lng - span, east: city.lng + span };
  }
  const names = FACETS.filter(() => chance(0.6));
  return { query, names: names.length ? names : [pick(next, FACETS)] };
}
