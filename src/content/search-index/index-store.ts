// One loaded copy of the listed items (docs/search.md, "How a query runs"): the items in numbered
// slots with typed arrays per field (index-slots.ts), one order per sort column (index-orders.ts),
// their words (index-text.ts), the published ones in map order (index-map.ts), and the sets of
// slots kept as bits (slot-bits.ts, index-ranges.ts, facet-bits.ts). It knows how to take an item in or out and
// how to select a query's slots; the page, facet and cluster answers read it (index-query.ts,
// index-facets.ts, index-clusters.ts), and index-sync.ts fills it and swaps a fresh one in.
import { queryTermsOf } from './search-text.js';
import { ItemSlots } from './index-slots.js';
import { SlotOrder } from './index-orders.js';
import { TextIndex, type TermMatches } from './index-text.js';
import { ItemFilter } from './index-filter.js';
import { FINEST_LEVEL, MapOrder, cellsOf, coarsestBelow } from './index-map.js';
import { RangeBits } from './index-ranges.js';
import { FacetBits } from './facet-bits.js';
import { addSlot, intersect, removeSlot, widened, wordsFor } from './slot-bits.js';
import type { IndexQuery, IndexRow, SortColumn } from './index-types.js';
import type { Viewport } from './viewport.js';

/** A map area is looked up in at most this many cells. */
const AREA_CELLS = 64;

/** The orders whose values can change with an item (the id order's cannot). */
const ORDERED: SortColumn[] = ['created_at', 'updated_at', 'price', 'area', 'price_per_area', 'reaction_count'];

/** The columns a query can ask a range of, each kept as sets of bits too (index-ranges.ts). */
export const RANGE_COLUMNS = ['price', 'area', 'created_at'] as const;
export type RangeColumn = (typeof RANGE_COLUMNS)[number];
export const isRangeColumn = (column: SortColumn): column is RangeColumn => (RANGE_COLUMNS as readonly string[]).includes(column);

/** The query's range on a column, [low, high] (creation time in microseconds), if it asks one. */
export function rangeBoundsOf(column: RangeColumn, query: IndexQuery): { low: number; high: number } | null {
  const f = query.filters;
  const us = (d: Date | undefined) => (d === undefined ? undefined : d.getTime() * 1000);
  const [low, high] =
    column === 'price' ? [f.price_from, f.price_to] : column === 'area' ? [f.area_from, f.area_to] : [us(f.created_at_start_date), us(f.created_at_end_date)];
  if (low === undefined && high === undefined) return null;
  return { low: low ?? -Infinity, high: high ?? Infinity };
}

export class IndexStore {
  readonly slots: ItemSlots;
  readonly orders: Record<SortColumn | 'id', SlotOrder>;
  readonly text = new TextIndex();
  readonly map: MapOrder;
  /** The held slots, and the published ones, as bits (slot-bits.ts). */
  private heldBits = new Uint32Array(0);
  private publishedBits = new Uint32Array(0);
  /** Each range column as sets of bits. */
  private readonly ranges: Record<RangeColumn, RangeBits>;
  /** The slots of each facet value, language and unit (facet-bits.ts), for facet counts. */
  readonly facetBits = new FacetBits();
  /** Every held slot in a random order (for the sampled estimate of a large total), and each slot's place in it. */
  shuffled = new Int32Array(0);
  private shuffledAt = new Int32Array(0);
  shuffledLength = 0;
  /** Scratch of a query: the slots it selects and one condition's slots (bits), a page's candidates and their sort keys. */
  selected = new Uint32Array(0);
  private condition = new Uint32Array(0);
  candidateSlots = new Int32Array(0);
  candidateKeys = new Float64Array(0);
  /** False while being filled: the orders, the map and the sample order are built once, at the end (`finish`). */
  private built = false;

  constructor() {
    const slots = new ItemSlots((capacity) => this.grow(capacity));
    this.slots = slots;
    const order = (value: (slot: number) => number) => new SlotOrder(value, (a, b) => slots.compareIds(a, b));
    this.orders = {
      created_at: order((s) => slots.createdUs[s]),
      updated_at: order((s) => slots.updatedUs[s]),
      price: order((s) => slots.price[s]),
      area: order((s) => slots.area[s]),
      price_per_area: order((s) => slots.pricePerArea[s]),
      reaction_count: order((s) => slots.reactionCount[s]),
      // Ties of relevance go by id.
      id: order(() => 0),
    };
    this.ranges = { price: new RangeBits(this.orders.price), area: new RangeBits(this.orders.area), created_at: new RangeBits(this.orders.created_at) };
    this.map = new MapOrder(
      () => slots.latitude,
      () => slots.longitude,
    );
  }

  private grow(capacity: number): void {
    // Called from ItemSlots' constructor too, before the fields below exist.
    for (const order of Object.values(this.orders ?? {})) order.grow(capacity);
    for (const range of Object.values(this.ranges ?? {})) range.grow(capacity);
    this.heldBits = widened(this.heldBits ?? new Uint32Array(0), capacity);
    this.publishedBits = widened(this.publishedBits ?? new Uint32Array(0), capacity);
    this.facetBits?.grow(capacity);
    this.selected = new Uint32Array(wordsFor(capacity));
    this.condition = new Uint32Array(wordsFor(capacity));
    this.text?.grow(capacity);
    this.map?.grow(capacity);
    const shuffled = new Int32Array(capacity);
    shuffled.set(this.shuffled ?? []);
    this.shuffled = shuffled;
    const at = new Int32Array(capacity);
    at.set(this.shuffledAt ?? []);
    this.shuffledAt = at;
    this.candidateSlots = new Int32Array(capacity);
    this.candidateKeys = new Float64Array(capacity);
  }

  /** Items held. */
  size(): number {
    return this.slots.size();
  }

  /** Builds the orders, the map and the sample order of everything put so far; later puts keep them. */
  finish(): void {
    const held = [...this.slots.held()];
    for (const order of Object.values(this.orders)) order.rebuild(held);
    for (const range of Object.values(this.ranges)) range.rebuild();
    this.map.rebuild(held.filter((slot) => this.onMap(slot)));
    for (const slot of held) this.addShuffled(slot);
    this.facetBits.settle();
    this.built = true;
  }

  /** The uploader of a held item. */
  uploaderOf(id: string): string | undefined {
    const slot = this.slots.slot(id);
    return slot === undefined ? undefined : this.slots.uploaders.valueAt(this.slots.uploader[slot]);
  }

  idsOfUploader(userId: string): string[] {
    const code = this.slots.uploaders.find(userId);
    const ids: string[] = [];
    for (const slot of this.slots.held()) if (this.slots.uploader[slot] === code) ids.push(this.slots.idOf(slot));
    return ids;
  }

  /** Whether a slot's item belongs on the map: published, with a position. */
  onMap(slot: number): boolean {
    return this.slots.published[slot] === 1 && !Number.isNaN(this.slots.latitude[slot]);
  }

  /** Takes a slot out of the orders, the map and the words (before its values change). */
  private detach(slot: number): void {
    for (const order of Object.values(this.orders)) order.remove(slot);
    if (this.onMap(slot)) this.map.remove(slot);
    this.text.remove(slot);
  }

  put(row: IndexRow): void {
    const old = this.slots.slot(row.id);
    // What the orders and the map hold of it now: only what changes moves (a reaction moves one order).
    const before =
      old === undefined
        ? null
        : { values: ORDERED.map((c) => this.orders[c].valueAt(old)), onMap: this.onMap(old), lat: this.slots.latitude[old], lng: this.slots.longitude[old] };
    if (old !== undefined) this.facetBits.remove(this.slots, old);
    const slot = this.slots.write(row);
    this.facetBits.add(this.slots, slot);
    addSlot(this.heldBits, slot);
    if (this.slots.published[slot] === 1) addSlot(this.publishedBits, slot);
    else removeSlot(this.publishedBits, slot);
    // The title weighs more than the rest: the project names; the rest is the stored folded text.
    this.text.add(slot, (row.content_info ?? []).map((b) => b.project_name).join(' '), row.search_text ?? '');
    if (!this.built) return;
    if (!before) {
      for (const order of Object.values(this.orders)) order.insert(slot);
      for (const column of RANGE_COLUMNS) this.setRange(column, slot);
      if (this.onMap(slot)) this.map.insert(slot);
      this.addShuffled(slot);
      return;
    }
    ORDERED.forEach((column, i) => {
      const order = this.orders[column];
      if (order.valueAt(slot) === before.values[i]) return;
      order.remove(slot, before.values[i]);
      order.insert(slot);
      if (isRangeColumn(column)) this.setRange(column, slot);
    });
    const onMap = this.onMap(slot);
    const moved = this.slots.latitude[slot] !== before.lat || this.slots.longitude[slot] !== before.lng;
    if (before.onMap && (!onMap || moved)) this.map.remove(slot);
    if (onMap && (!before.onMap || moved)) this.map.insert(slot);
  }

  /** A slot's value of a range column is now its order's (NaN: the slot goes); the column is cut again when its cuts are stale. */
  private setRange(column: RangeColumn, slot: number, value = this.orders[column].valueAt(slot)): void {
    const range = this.ranges[column];
    range.set(slot, value);
    if (range.stale()) range.rebuild();
  }

  drop(id: string): void {
    const slot = this.slots.slot(id);
    if (slot === undefined) return;
    if (this.built) {
      this.detach(slot);
      this.removeShuffled(slot);
      for (const column of RANGE_COLUMNS) this.setRange(column, slot, NaN);
    } else this.text.remove(slot);
    removeSlot(this.heldBits, slot);
    removeSlot(this.publishedBits, slot);
    this.facetBits.remove(this.slots, slot);
    this.slots.release(id);
  }

  private addShuffled(slot: number): void {
    const at = this.shuffledLength++;
    const other = Math.floor(Math.random() * (at + 1));
    this.shuffled[at] = this.shuffled[other];
    this.shuffledAt[this.shuffled[at]] = at;
    this.shuffled[other] = slot;
    this.shuffledAt[slot] = other;
  }

  private removeShuffled(slot: number): void {
    const at = this.shuffledAt[slot];
    const last = this.shuffled[--this.shuffledLength];
    this.shuffled[at] = last;
    this.shuffledAt[last] = at;
  }

  // ---- selecting a query's slots (shared by pages, facets and clusters) ----

  /** Each search term's matches, the fewest first (none: nothing matches); null without a search. */
  termsOf(search: string | undefined): TermMatches[] | null {
    return search === undefined || search.trim() === '' ? null : this.text.termMatches(queryTermsOf(search));
  }

  /** The words of the slot bit sets now. */
  words(): number {
    return wordsFor(this.slots.used);
  }

  /**
   * Writes into `selected` the slots the query's search, ranges, area and "who may see" select
   * (one set of bits each, intersected). Returns whether the area was taken from the map (else a
   * viewport is left to the residual test).
   */
  select(words: number, query: IndexQuery, terms: TermMatches[] | null): boolean {
    const into = this.selected;
    // Everyone sees the published items; whoever may see more (an owner, an administrator) starts from all of them.
    into.set((query.visibility.kind === 'published' ? this.publishedBits : this.heldBits).subarray(0, words));
    for (const term of terms ?? []) intersect(into, term.bits, words);
    for (const column of RANGE_COLUMNS) {
      const range = rangeBoundsOf(column, query);
      if (!range) continue;
      this.ranges[column].select(this.condition, words, range.low, range.high);
      intersect(into, this.condition, words);
    }
    // Only published items are on the map.
    const v = query.viewport;
    if (!v || v.west > v.east || query.visibility.kind !== 'published') return false;
    this.areaInto(this.condition, words, v);
    intersect(into, this.condition, words);
    return true;
  }

  /** The published slots as bits (for facet counts, which add a caller's own to them). */
  publishedSlots(): Uint32Array {
    return this.publishedBits;
  }

  /** Writes into the first `words` words of `into` the slots whose value of `column` lies within [low, high]. */
  rangeInto(column: RangeColumn, into: Uint32Array, words: number, low: number, high: number): void {
    this.ranges[column].select(into, words, low, high);
  }

  /**
   * What the selected bits leave to a test of each item: an owner's own unpublished items, a
   * caller's blocks, the filters kept as codes per item, a viewport not taken from the map. Null
   * when the bits say it all.
   */
  residualOf(query: IndexQuery, areaFromMap: boolean): ItemFilter | null {
    const f = query.filters;
    const needed =
      query.visibility.kind === 'published-or-own' ||
      (query.hidden?.size ?? 0) > 0 ||
      Boolean(f.lang) ||
      Boolean(f.unit_price) ||
      Boolean(f.unit_area) ||
      (f.amenities?.length ?? 0) > 0 ||
      (f.apartment_type?.length ?? 0) > 0 ||
      (f.project_status?.length ?? 0) > 0 ||
      (Boolean(query.viewport) && !areaFromMap);
    return needed ? new ItemFilter(this.slots, query) : null;
  }

  /** The published items in the map cells covering a viewport (west ≤ east), as bits. */
  private areaInto(into: Uint32Array, words: number, v: Viewport): void {
    into.fill(0, 0, words);
    const box = { minLat: v.south, maxLat: v.north, minLng: v.west, maxLng: v.east, zoom: 0 };
    const level = coarsestBelow(box, FINEST_LEVEL, AREA_CELLS);
    const { latitude, longitude } = this.slots;
    for (const cell of cellsOf(box, level)) {
      const run = this.map.run(level, cell.x, cell.y);
      for (let i = run.from; i < run.to; i++) {
        const slot = this.map.order[i];
        const lat = latitude[slot];
        const lng = longitude[slot];
        if (lat >= v.south && lat <= v.north && lng >= v.west && lng <= v.east) addSlot(into, slot);
      }
    }
  }
}
