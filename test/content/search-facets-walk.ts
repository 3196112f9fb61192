// The facet counts of `/all` as the listing index computed them before the value sets
// (facet-bits.ts): every selected item read and tested, each counted in the facets whose filters
// it fails alone or none of. Kept unchanged as the reference the sets' counts are checked against
// (search-facets-bits.test.ts) and timed against (bench/facet-counts.ts); not used by the service.
import { ItemFilter, FACET_BIT } from '../../src/content/search-index/index-filter.js';
import { forEachSlot } from '../../src/content/search-index/slot-bits.js';
import { priceBucketOf } from '../../src/content/search-index/price-buckets.js';
import type { IndexStore } from '../../src/content/search-index/index-store.js';
import type { FacetName, Facets, IndexQuery, PriceBucket } from '../../src/content/search-index/index-types.js';

/**
 * Facet counts (CONTRACT §23): each over the matches of every other filter. The items selected
 * by every condition kept as bits except the price range (itself a facet) are read, and each
 * says which facets' filters it fails.
 */
export function facetsByWalk(store: IndexStore, query: IndexQuery, names: readonly FacetName[]): Facets {
  const terms = store.termsOf(query.search);
  const s = store.slots;
  const wanted = names.reduce((bits, name) => bits | FACET_BIT[name], 0);
  const withoutPrice: IndexQuery = { ...query, filters: { ...query.filters, price_from: undefined, price_to: undefined } };
  // With no residual test the bits say everything but the price range: an item fails the price
  // facet's filter or nothing. Else the filter says which facets' filters an item fails.
  const residual = store.residualOf(withoutPrice, false);
  const filter = new ItemFilter(store.slots, query);
  const low = query.filters.price_from ?? -Infinity;
  const high = query.filters.price_to ?? Infinity;
  const failuresOf =
    residual === null ? (slot: number) => (s.price[slot] < low || s.price[slot] > high ? FACET_BIT.price : 0) : (slot: number) => filter.failures(slot, true);
  // Counted by code, in arrays (a facet request may read every item).
  const amenities = new Int32Array(s.amenities.size);
  const apartmentTypes = new Int32Array(s.apartmentTypes.size);
  const projectStatuses = new Int32Array(s.projectStatuses.size);
  const prices = new Int32Array(s.priceBuckets.size);
  const bump = (counts: Int32Array, codes: readonly number[]) => {
    for (let i = 0; i < codes.length; i++) counts[codes[i]]++;
  };
  const visit = (slot: number) => {
    const failed = failuresOf(slot);
    // Counted in a facet: items that pass everything, or fail its own filter only.
    const into = failed === 0 ? wanted : (failed & (failed - 1)) === 0 ? failed & wanted : 0;
    if (into === 0) return;
    if (into & FACET_BIT.amenities) bump(amenities, s.amenityCodes[slot]);
    if (into & FACET_BIT.apartment_type) bump(apartmentTypes, s.apartmentTypeCodes[slot]);
    if (into & FACET_BIT.project_status) bump(projectStatuses, s.projectStatusCodes[slot]);
    if (into & FACET_BIT.price) prices[s.priceBucket[slot]]++;
  };
  if (!terms || (terms.length > 0 && terms[0].count > 0)) {
    const words = store.words();
    store.select(words, withoutPrice, terms);
    forEachSlot(store.selected, words, visit);
  }
  const named = (counts: Int32Array, codes: { valueAt(code: number): string }) => {
    const found: Record<string, number> = {};
    counts.forEach((n, code) => {
      if (n > 0) found[codes.valueAt(code)] = n;
    });
    return found;
  };
  const facets: Facets = {};
  if (wanted & FACET_BIT.amenities) facets.amenities = named(amenities, s.amenities);
  if (wanted & FACET_BIT.apartment_type) facets.apartment_type = named(apartmentTypes, s.apartmentTypes);
  if (wanted & FACET_BIT.project_status) facets.project_status = named(projectStatuses, s.projectStatuses);
  if (wanted & FACET_BIT.price) {
    const buckets: PriceBucket[] = [];
    prices.forEach((count, code) => {
      if (count > 0) buckets.push({ ...priceBucketOf(Number(s.priceBuckets.valueAt(code))), count });
    });
    facets.price = buckets.sort((a, b) => (a.from ?? 0) - (b.from ?? 0));
  }
  return facets;
}
