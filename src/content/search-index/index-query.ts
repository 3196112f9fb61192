// A page of a listing and its total, from a loaded IndexStore (docs/search.md, "How a query runs"):
// the query's slots selected as bits, then either its few selected items sorted by rank or the
// column's order walked until the page is full; `total` is the number selected, or, with a
// residual test, exact up to COUNT_EXACT matches and above it estimated from a random sample.
import type { TermMatches } from './index-text.js';
import type { ItemFilter } from './index-filter.js';
import type { SlotOrder } from './index-orders.js';
import { countSlots, forEachSlot, hasSlot } from './slot-bits.js';
import { smallestFirst } from './smallest-k.js';
import { isRangeColumn, rangeBoundsOf, type IndexStore } from './index-store.js';
import type { IndexPage, IndexQuery, IndexSort, PageItem, SortColumn } from './index-types.js';

/** `total` is counted exactly up to this many matches; above, estimated (CONTRACT §23: within 10 %). */
export const COUNT_EXACT = 10_000;
/** Matches read before a total is estimated from the share of its source that passed (about 3 % off, one standard deviation). */
const COUNT_SAMPLE = 1_000;
/** An estimate is answered only this far above COUNT_EXACT (about eight standard deviations of a COUNT_SAMPLE sample). */
const ESTIMATE_MARGIN = 1.25;
/** A page sorts its selected items when there are at most this many; else it walks the order (or sorts, when few of those pass). */
const SORTED_CANDIDATES = 4_096;
/** A page walks its order instead of sorting when that tests fewer than this many bits per item it would sort. */
const WALK_COST = 8;

/** A slot's relevance: the sum of each term's best match. */
function scoreOf(terms: readonly TermMatches[]): (slot: number) => number {
  if (terms.length === 1) {
    const tenths = terms[0].tenths;
    return (slot) => tenths[slot];
  }
  return (slot) => {
    let sum = 0;
    for (const term of terms) sum += term.tenths[slot];
    return sum;
  };
}

/** The page `page` (1-based) of a listing, and its total (exact up to COUNT_EXACT). */
export function pageOf(store: IndexStore, query: IndexQuery, sort: IndexSort, page: number, perPage: number): IndexPage {
  const none: IndexPage = { items: [], total: 0, hasMore: false };
  const terms = store.termsOf(query.search);
  if (terms && (terms.length === 0 || terms[0].count === 0)) return none;
  const words = store.words();
  const areaFromMap = store.select(words, query, terms);
  const selected = store.selected;
  // With a residual test, the selected slots are an upper bound of the matches; without, they are the matches.
  const residual = store.residualOf(query, areaFromMap);
  const size = countSlots(selected, words);
  if (size === 0) return none;
  const test = residual ? (slot: number) => hasSlot(selected, slot) && residual.passes(slot) : (slot: number) => hasSlot(selected, slot);
  const offset = (page - 1) * perPage;
  const asc = sort.direction === 'asc';
  const relevance = sort.column === 'relevance' && terms !== null;
  const column: SortColumn = sort.column === 'relevance' ? 'created_at' : sort.column;
  const order = relevance ? store.orders.id : store.orders[column];
  const score = scoreOf(terms ?? []);
  const key = relevance
    ? (slot: number, rank: Int32Array) => (asc ? 1 : -1) * score(slot) * 2 ** 32 + (asc ? -1 : 1) * rank[slot]
    : (slot: number, rank: Int32Array) => (asc ? rank[slot] : -rank[slot]);
  // What to walk: the matches by relevance (kept for one term), or the column's order (only its
  // part within the range, when the range is on the sort column).
  const ranked = relevance && terms.length === 1 ? terms[0].ranked(order.order, order.ranks()) : null;
  if (size <= SORTED_CANDIDATES || (relevance && !ranked)) return sortedPage(store, words, residual, key, order, offset, perPage);
  const run = ranked ? { from: 0, to: ranked.length } : (rangeOf(store, column, query) ?? { from: 0, to: order.length });
  // A walk tests about (rows wanted) × (run length) / (selected) entries, a bit each; sorting
  // keys every selected item, several times the cost of a bit.
  if ((offset + perPage + 1) * (run.to - run.from) > WALK_COST * size * size) return sortedPage(store, words, residual, key, order, offset, perPage);
  const total = residual ? countPassing(store, words, size, residual) : size;
  const step = relevance === asc ? -1 : 1;
  return walk(store, ranked ?? order.order, run.from, run.to, step, test, offset, perPage, total);
}

/** A page from the few selected items: keyed (by rank in `order`), the first ones sorted; `total` exact. */
function sortedPage(
  store: IndexStore,
  words: number,
  residual: ItemFilter | null,
  key: (slot: number, rank: Int32Array) => number,
  order: SlotOrder,
  offset: number,
  perPage: number,
): IndexPage {
  const rank = order.ranks();
  const { candidateSlots, candidateKeys } = store;
  let count = 0;
  forEachSlot(store.selected, words, (slot) => {
    if (residual && !residual.passes(slot)) return;
    candidateSlots[count] = slot;
    candidateKeys[count++] = key(slot, rank);
  });
  smallestFirst(candidateKeys, candidateSlots, count, offset + perPage + 1);
  const items: PageItem[] = [];
  for (let i = offset; i < Math.min(count, offset + perPage); i++) items.push(store.slots.pageItem(candidateSlots[i]));
  return { items, total: count, hasMore: count > offset + perPage };
}

/**
 * A page from walking `slots[from..to)` (step 1: forward, -1: backward) until the page is full
 * and one more item passes; `total` as counted, unless the walk reached the end (then exact).
 */
function walk(
  store: IndexStore,
  slots: Int32Array,
  from: number,
  to: number,
  step: 1 | -1,
  passes: (slot: number) => boolean,
  offset: number,
  perPage: number,
  total: number,
): IndexPage {
  const wanted = offset + perPage + 1;
  const items: PageItem[] = [];
  let found = 0;
  for (let i = step === 1 ? from : to - 1; i >= from && i < to && found < wanted; i += step) {
    const slot = slots[i];
    if (!passes(slot)) continue;
    if (found >= offset && found < offset + perPage) items.push(store.slots.pageItem(slot));
    found++;
  }
  const hasMore = found === wanted;
  return { items, hasMore, total: hasMore ? Math.max(wanted, total) : found };
}

/** The run of a column's order within the query's range on that column, if it has one. */
function rangeOf(store: IndexStore, column: SortColumn, query: IndexQuery): { from: number; to: number } | null {
  if (!isRangeColumn(column)) return null;
  const range = rangeBoundsOf(column, query);
  return range && store.orders[column].between(range.low, range.high);
}

/**
 * How many of the `size` selected items pass the residual test (CONTRACT §23: exact up to
 * COUNT_EXACT, above it an estimate within 10 %). Few are counted one by one; of many, the
 * items are read in the random order of `shuffled` until COUNT_SAMPLE passed, and the share
 * that passed gives an estimate within 10 % but for one time in a thousand (3 % is one standard
 * deviation). An estimate above COUNT_EXACT by a margin no sampling error reaches is answered;
 * anything else is counted to the end (or to COUNT_EXACT matches, where the estimate is within 1 %).
 */
function countPassing(store: IndexStore, words: number, size: number, residual: ItemFilter): number {
  const selected = store.selected;
  let matched = 0;
  if (size <= COUNT_EXACT * ESTIMATE_MARGIN) {
    forEachSlot(selected, words, (slot) => {
      if (residual.passes(slot)) matched++;
    });
    return matched;
  }
  const { shuffled, shuffledLength } = store;
  for (let read = 0; read < shuffledLength; read++) {
    const slot = shuffled[read];
    if (!hasSlot(selected, slot) || !residual.passes(slot)) continue;
    matched++;
    if (matched === COUNT_SAMPLE || matched === COUNT_EXACT) {
      const estimate = Math.round((matched * shuffledLength) / (read + 1));
      if (estimate > COUNT_EXACT * ESTIMATE_MARGIN) return estimate;
    }
  }
  return matched;
}
