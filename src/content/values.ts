// Listing values SPEC leaves open and CONTRACT §13 fixes: currency codes, area units, short
// listing strings, and the text folding that makes search accent- and case-insensitive.

/** ISO 4217 codes Node knows (Intl), so `VND`, `USD`, `KRW`, … but not `XYZ`. */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export const isCurrencyCode = (value: string): boolean => CURRENCIES.has(value);

/** Accepted spellings of the two area units, keyed by a folded form (lower case, no spaces). */
const AREA_UNITS: Record<string, 'm2' | 'sqft'> = {
  m2: 'm2',
  'm²': 'm2',
  sqm: 'm2',
  sqft: 'sqft',
  'ft²': 'sqft',
  ft2: 'sqft',
};

/** `m2`/`sqft` for an accepted spelling (`m²`, `sqm`, `ft²`, `sq ft`, any case), else null. */
export function normaliseAreaUnit(value: string): 'm2' | 'sqft' | null {
  const key = value
    .trim()
    .toLowerCase()
    .replace(/[\s.]+/g, '');
  return AREA_UNITS[key] ?? null;
}

export const LANGUAGES = ['en', 'vi', 'ko'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

/**
 * Folds text for search: lower case, diacritics removed (Vietnamese `Căn hộ` → `can ho`,
 * `đ` → `d`), whitespace collapsed. Hangul is decomposed and recomposed, so Korean text is
 * kept as written. Used both on stored text and on the query, so they always match.
 */
export function foldForSearch(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{Mn}+/gu, '')
    .normalize('NFC')
    .replace(/đ/g, 'd')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Escapes LIKE wildcards so a search string is matched literally. */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);
