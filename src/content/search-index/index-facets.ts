// Facet counts of `/all` (CONTRACT §23, docs/search.md "Facets") from a loaded IndexStore: each
// facet over the matches of every other filter. Counted from sets of bits (facet-bits.ts)
// without reading an item, or, when some condition is not kept as bits (a viewport the map
// cannot give), by reading each selected item.
import { ItemFilter, FACET_BIT } from './index-filter.js';
import { countSlots, forEachSlot, intersect } from './slot-bits.js';
import { priceBucketOf } from './price-buckets.js';
import { rangeBoundsOf, type IndexStore } from './index-store.js';
import type { ValueSets } from './facet-bits.js';
import type { TermMatches } from './index-text.js';
import type { FacetName, Facets, IndexQuery, PriceBucket } from './index-types.js';

/** Reading an item's codes costs about as much as this many words of a set (an estimate: its array is a pointer away, a word one read). */
const READ_COST = 8;

/** The counts of one request, by code. */
interface Counts {
  amenities: Int32Array;
  apartmentTypes: Int32Array;
  projectStatuses: Int32Array;
  prices: Int32Array;
}

/** Facet counts (CONTRACT §23): each over the matches of every other filter. */
export function facetsOf(store: IndexStore, query: IndexQuery, names: readonly FacetName[]): Facets {
  const terms = store.termsOf(query.search);
  const s = store.slots;
  const wanted = names.reduce((bits, name) => bits | FACET_BIT[name], 0);
  // Counted by code, in arrays (a facet request may count every item).
  const counts: Counts = {
    amenities: new Int32Array(s.amenities.size),
    apartmentTypes: new Int32Array(s.apartmentTypes.size),
    projectStatuses: new Int32Array(s.projectStatuses.size),
    prices: new Int32Array(s.priceBuckets.size),
  };
  // A search none of whose words is known matches nothing.
  if (!terms || (terms.length > 0 && terms[0].count > 0)) {
    if (!countFromBits(store, query, terms, wanted, counts)) countByReading(store, query, terms, wanted, counts);
  }
  const named = (counts: Int32Array, codes: { valueAt(code: number): string }) => {
    const found: Record<string, number> = {};
    counts.forEach((n, code) => {
      if (n > 0) found[codes.valueAt(code)] = n;
    });
    return found;
  };
  const facets: Facets = {};
  if (wanted & FACET_BIT.amenities) facets.amenities = named(counts.amenities, s.amenities);
  if (wanted & FACET_BIT.apartment_type) facets.apartment_type = named(counts.apartmentTypes, s.apartmentTypes);
  if (wanted & FACET_BIT.project_status) facets.project_status = named(counts.projectStatuses, s.projectStatuses);
  if (wanted & FACET_BIT.price) {
    const buckets: PriceBucket[] = [];
    counts.prices.forEach((count, code) => {
      if (count > 0) buckets.push({ ...priceBucketOf(Number(s.priceBuckets.valueAt(code))), count });
    });
    facets.price = buckets.sort((a, b) => (a.from ?? 0) - (b.from ?? 0));
  }
  return facets;
}

/** The codes of the wanted values (lower case), those some item has. */
function knownCodes(values: readonly string[], find: (value: string) => number): number[] {
  return values.map((v) => find(v.toLowerCase())).filter((code) => code >= 0);
}

/**
 * Counts from the value sets: the selection of every condition but the facets' own filters, as
 * bits (who may see, with the caller's own items and without their blocked uploaders; the
 * search; the area and creation ranges; language and units), is narrowed for each facet by the
 * other facets' filters and intersected with each of its values' sets. False, counting nothing,
 * when a condition is not kept as bits (a viewport the map cannot give).
 */
function countFromBits(store: IndexStore, query: IndexQuery, terms: TermMatches[] | null, wanted: number, counts: Counts): boolean {
  const f = query.filters;
  const v = query.visibility;
  // An owner's unpublished items are added below: every live item is selected first.
  const base: IndexQuery = {
    search: query.search,
    visibility: v.kind === 'published-or-own' ? { kind: 'every' } : v,
    viewport: query.viewport,
    filters: { area_from: f.area_from, area_to: f.area_to, created_at_start_date: f.created_at_start_date, created_at_end_date: f.created_at_end_date },
  };
  const words = store.words();
  const areaFromMap = store.select(words, base, terms);
  if (store.residualOf(base, areaFromMap) !== null) return false;
  const s = store.slots;
  const sets = store.facetBits;
  const [selected, amenities, apartmentTypes, projectStatuses, price, narrowed, scratch] = sets.scratch;
  selected.set(store.selected.subarray(0, words));

  // Who may see: the published items and the caller's own; never a blocked uploader's.
  if (v.kind === 'published-or-own') {
    scratch.set(store.publishedSlots().subarray(0, words));
    sets.uploaders.addInto(s.uploaders.find(v.userId), scratch, words);
    intersect(selected, scratch, words);
  }
  for (const id of query.hidden ?? []) sets.uploaders.removeFrom(s.uploaders.find(id), selected, words);

  // The conditions kept as codes per item that are not facets: language and units.
  const keepValue = (values: ValueSets, code: number) => {
    if (values.empty(code)) selected.fill(0, 0, words);
    else values.keepInto(code, selected, words, scratch);
  };
  if (f.lang) {
    const bit = s.languageBit(f.lang);
    keepValue(sets.languages, bit === 0 ? -1 : 31 - Math.clz32(bit));
  }
  if (f.unit_price) keepValue(sets.unitPrice, s.units.find(f.unit_price));
  if (f.unit_area) keepValue(sets.unitArea, s.units.find(f.unit_area));

  // Each facet's filter as a set: amenities every one listed, types and statuses any one listed
  // (in lower case), the price range.
  const filters: [number, Uint32Array][] = [];
  if (f.amenities?.length) {
    const codes = [...new Set(f.amenities)].map((a) => s.amenities.find(a));
    if (codes.some((code) => sets.amenities.empty(code))) amenities.fill(0, 0, words);
    else {
      sets.amenities.copyInto(codes[0], amenities, words);
      for (const code of codes.slice(1)) sets.amenities.keepInto(code, amenities, words, scratch);
    }
    filters.push([FACET_BIT.amenities, amenities]);
  }
  const anyOf = (values: readonly string[], codes: { find(value: string): number }, valueSets: ValueSets, into: Uint32Array, bit: number) => {
    into.fill(0, 0, words);
    for (const code of knownCodes(values, (value) => codes.find(value))) valueSets.addInto(code, into, words);
    filters.push([bit, into]);
  };
  if (f.apartment_type?.length) anyOf(f.apartment_type, s.apartmentTypes, sets.apartmentTypes, apartmentTypes, FACET_BIT.apartment_type);
  if (f.project_status?.length) anyOf(f.project_status, s.projectStatuses, sets.projectStatuses, projectStatuses, FACET_BIT.project_status);
  const priceRange = rangeBoundsOf('price', query);
  if (priceRange) {
    store.rangeInto('price', price, words, priceRange.low, priceRange.high);
    filters.push([FACET_BIT.price, price]);
  }

  // Each facet: the selection within the other facets' filters, against each of its values; or,
  // when it holds so few items that reading their codes costs less, each item's codes.
  const count = (bit: number, values: ValueSets, into: Int32Array, codesOf: (slot: number) => readonly number[]) => {
    if ((wanted & bit) === 0) return;
    narrowed.set(selected.subarray(0, words));
    for (const [other, set] of filters) if (other !== bit) intersect(narrowed, set, words);
    // Only the words holding a slot are read.
    const at = sets.wordList;
    let n = 0;
    for (let i = 0; i < words; i++) if (narrowed[i] !== 0) at[n++] = i;
    if (n === 0) return;
    if (countSlots(narrowed, words) * READ_COST < values.countCost(n)) {
      forEachSlot(narrowed, words, (slot) => {
        const codes = codesOf(slot);
        for (let i = 0; i < codes.length; i++) into[codes[i]]++;
      });
    } else for (let code = 0; code < into.length; code++) into[code] = values.countIn(code, narrowed, at, n);
  };
  const bucket: number[] = [0];
  count(FACET_BIT.amenities, sets.amenities, counts.amenities, (slot) => s.amenityCodes[slot]);
  count(FACET_BIT.apartment_type, sets.apartmentTypes, counts.apartmentTypes, (slot) => s.apartmentTypeCodes[slot]);
  count(FACET_BIT.project_status, sets.projectStatuses, counts.projectStatuses, (slot) => s.projectStatusCodes[slot]);
  count(FACET_BIT.price, sets.priceBuckets, counts.prices, (slot) => {
    bucket[0] = s.priceBucket[slot];
    return bucket;
  });
  return true;
}

/**
 * Counts by reading each item the bits select (every condition kept as bits except the price
 * range, itself a facet): each item says which facets' filters it fails, and is counted in the
 * facets whose filter alone it fails, or in all of them.
 */
function countByReading(store: IndexStore, query: IndexQuery, terms: TermMatches[] | null, wanted: number, counts: Counts): void {
  const s = store.slots;
  const withoutPrice: IndexQuery = { ...query, filters: { ...query.filters, price_from: undefined, price_to: undefined } };
  const words = store.words();
  const areaFromMap = store.select(words, withoutPrice, terms);
  // With no residual test the bits say everything but the price range: an item fails the price
  // facet's filter or nothing. Else the filter says which facets' filters an item fails.
  const residual = store.residualOf(withoutPrice, areaFromMap);
  const filter = new ItemFilter(store.slots, query);
  const low = query.filters.price_from ?? -Infinity;
  const high = query.filters.price_to ?? Infinity;
  const failuresOf =
    residual === null ? (slot: number) => (s.price[slot] < low || s.price[slot] > high ? FACET_BIT.price : 0) : (slot: number) => filter.failures(slot, true);
  const bump = (into: Int32Array, codes: readonly number[]) => {
    for (let i = 0; i < codes.length; i++) into[codes[i]]++;
  };
  forEachSlot(store.selected, words, (slot) => {
    const failed = failuresOf(slot);
    const into = failed === 0 ? wanted : (failed & (failed - 1)) === 0 ? failed & wanted : 0;
    if (into === 0) return;
    if (into & FACET_BIT.amenities) bump(counts.amenities, s.amenityCodes[slot]);
    if (into & FACET_BIT.apartment_type) bump(counts.apartmentTypes, s.apartmentTypeCodes[slot]);
    if (into & FACET_BIT.project_status) bump(counts.projectStatuses, s.projectStatusCodes[slot]);
    if (into & FACET_BIT.price) counts.prices[s.priceBucket[slot]]++;
  });
}
