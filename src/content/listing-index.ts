// The per-node listing index (CONTRACT §23, docs/search.md): every listed item (listedConditions,
// the one rule the SQL listings use too) held in memory, so any `/all` or `/completed` query, a
// facet count or a map cluster is answered without PostgreSQL. PostgreSQL stays the truth: the
// index is loaded from it in pages at start, and every change of a listed item, on any node,
// reloads that item (the read model's item changes). While it loads, while a reload is under way,
// while this node may miss another's changes, or with LISTING_INDEX=off, `ready()` is false and
// the listings ask PostgreSQL, which always has the truth.
//
// How a query is answered (docs/search.md, "How a query runs"): the items sit in numbered slots
// with typed arrays per field (index-slots.ts), in one order per sort column (index-orders.ts),
// their words in a text index (index-text.ts), the published ones with a position in map order
// (index-map.ts). A query's conditions are sets of slots as bits (slot-bits.ts, index-ranges.ts),
// intersected; what is not kept as bits is tested on the selected items only (the residual test).
// A page either sorts its few selected items by rank or walks the column's order until the page
// is full; `total` is the number selected, or, with a residual test, exact up to COUNT_EXACT
// matches and above it estimated from a random sample of the items.
import type { Logger } from '../shared/logger.js';
import type { ContentRow } from './content-repository.js';
import type { ContentListingRepository, IndexRow, SortColumn } from './listing-repository.js';
import { queryTermsOf } from './search-text.js';
import { ItemSlots } from './index-slots.js';
import { SlotOrder } from './index-orders.js';
import { TextIndex, type TermMatches } from './index-text.js';
import { ItemFilter, FACET_BIT, type FacetName, type FilterQuery } from './index-filter.js';
import { FINEST_LEVEL, MapOrder, cellOf, cellsOf, clusterLevel, coarsestBelow, mercatorBoxOf, mercatorX, mercatorY, type Cluster, type ClusterBox } from './index-map.js';
import { RangeBits } from './index-ranges.js';
import { addSlot, countSlots, forEachSlot, hasSlot, intersect, removeSlot, widened, wordsFor } from './slot-bits.js';
import { smallestFirst } from './smallest-k.js';
import { priceBucketOf } from './price-buckets.js';
import type { Viewport } from './viewport.js';

export { FACETS, type FacetName } from './index-filter.js';

export interface PriceBucket {
  from: number | null;
  to: number | null;
  count: number;
}

export interface Facets {
  amenities?: Record<string, number>;
  apartment_type?: Record<string, number>;
  project_status?: Record<string, number>;
  price?: PriceBucket[];
}

/** The order of a listing: a column, or (with a search) relevance. */
export interface IndexSort {
  column: SortColumn | 'relevance';
  direction: 'asc' | 'desc';
}

/** What a query selects: who asks, the search, the filters, optionally an area and the uploaders left out. */
export interface IndexQuery extends FilterQuery {
  search?: string;
}

export interface IndexPage {
  rows: ContentRow[];
  hasMore: boolean;
  total: number;
}

const LOAD_PAGE = 2_000;
/** A failed full load is tried again after 1 s, doubling up to 30 s: a statement that timed out
 * under load must not leave the node reading PostgreSQL until the next change of everything. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;
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
/** A map area is looked up in at most this many cells. */
const AREA_CELLS = 64;

/** The orders whose values can change with an item (the id order's cannot). */
const ORDERED: SortColumn[] = ['created_at', 'updated_at', 'price', 'area', 'price_per_area', 'reaction_count'];

/** The columns a query can ask a range of, each kept as sets of bits too (index-ranges.ts). */
const RANGE_COLUMNS = ['price', 'area', 'created_at'] as const;
type RangeColumn = (typeof RANGE_COLUMNS)[number];
const isRangeColumn = (column: SortColumn): column is RangeColumn => (RANGE_COLUMNS as readonly string[]).includes(column);

/** The query's range on a column, [low, high] (creation time in microseconds), if it asks one. */
function rangeBoundsOf(column: RangeColumn, query: IndexQuery): { low: number; high: number } | null {
  const f = query.filters;
  const us = (d: Date | undefined) => (d === undefined ? undefined : d.getTime() * 1000);
  const [low, high] =
    column === 'price' ? [f.price_from, f.price_to]
    : column === 'area' ? [f.area_from, f.area_to]
    : [us(f.created_at_start_date), us(f.created_at_end_date)];
  if (low === undefined && high === undefined) return null;
  return { low: low ?? -Infinity, high: high ?? Infinity };
}

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

export class ListingIndex {
  private slots!: ItemSlots;
  private orders!: Record<SortColumn | 'id', SlotOrder>;
  private text!: TextIndex;
  private map!: MapOrder;
  /** The held slots, and the published ones, as bits (slot-bits.ts). */
  private heldBits = new Uint32Array(0);
  private publishedBits = new Uint32Array(0);
  /** Each range column as sets of bits. */
  private ranges!: Record<RangeColumn, RangeBits>;
  /** Every held slot in a random order (for the sampled estimate of a large total), and each slot's place in it. */
  private shuffled = new Int32Array(0);
  private shuffledAt = new Int32Array(0);
  private shuffledLength = 0;
  /** Scratch of a query: the slots it selects and one condition's slots (bits), a page's candidates and their sort keys. */
  private selected = new Uint32Array(0);
  private condition = new Uint32Array(0);
  private candidateSlots = new Int32Array(0);
  private candidateKeys = new Float64Array(0);

  private loaded = false;
  /** Bumped by every full (re)load: a load that is no longer the latest stops. */
  private generation = 0;
  /** Reloads of items under way: while any runs, some item may be stale. */
  private pending = 0;
  /** A sequence number per change heard, and the latest one per item changed while reloads run. */
  private sequence = 0;
  private readonly changedAt = new Map<string, number>();
  private readonly changedUploaderAt = new Map<string, number>();
  private loading: Promise<void> | null = null;
  /** Failed full loads in a row, and the timer of the next try. */
  private failedLoads = 0;
  private retry: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly repository: ContentListingRepository,
    private readonly enabled: boolean,
    private readonly hears: () => boolean,
    private readonly log: Logger,
  ) {
    this.reset();
  }

  /** Empty structures (before a full load). */
  private reset(): void {
    const slots = new ItemSlots((capacity) => this.grow(capacity));
    this.slots = slots;
    const ids = () => slots.ids;
    const order = (value: (slot: number) => number) => new SlotOrder(value, ids);
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
    this.heldBits = new Uint32Array(0);
    this.publishedBits = new Uint32Array(0);
    this.text = new TextIndex();
    this.map = new MapOrder(() => slots.latitude, () => slots.longitude);
    this.shuffled = new Int32Array(0);
    this.shuffledAt = new Int32Array(0);
    this.shuffledLength = 0;
  }

  private grow(capacity: number): void {
    for (const order of Object.values(this.orders ?? {})) order.grow(capacity);
    for (const range of Object.values(this.ranges ?? {})) range.grow(capacity);
    this.heldBits = widened(this.heldBits, capacity);
    this.publishedBits = widened(this.publishedBits, capacity);
    this.selected = new Uint32Array(wordsFor(capacity));
    this.condition = new Uint32Array(wordsFor(capacity));
    this.text?.grow(capacity);
    this.map?.grow(capacity);
    const shuffled = new Int32Array(capacity);
    shuffled.set(this.shuffled);
    this.shuffled = shuffled;
    const at = new Int32Array(capacity);
    at.set(this.shuffledAt);
    this.shuffledAt = at;
    this.candidateSlots = new Int32Array(capacity);
    this.candidateKeys = new Float64Array(capacity);
  }

  /** Whether queries may be answered from here now. */
  ready(): boolean {
    return this.enabled && this.loaded && this.pending === 0 && this.hears();
  }

  /** Items held (for /metrics and the docs' memory figures). */
  size(): number {
    return this.slots.size();
  }

  /** Starts loading (resolves when loaded, or when a load failed: it is then tried again with backoff). */
  start(): Promise<void> {
    if (!this.enabled) return Promise.resolve();
    return this.reloadAll();
  }

  /** Stops the retries of a failed load (the node is closing). */
  stop(): void {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
  }

  /** Loads everything again (after `everything` was invalidated, or a bulk write behind the service). */
  reloadAll(): Promise<void> {
    if (!this.enabled || this.stopped) return Promise.resolve();
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const generation = ++this.generation;
    this.loaded = false;
    this.reset();
    const load = this.load(generation).then(
      () => {
        if (generation === this.generation) this.failedLoads = 0;
      },
      (error: unknown) => {
        if (generation !== this.generation || this.stopped) return;
        const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** this.failedLoads++);
        this.log.warn({ err: error, retryInMs: delay }, 'listing index: load failed; listings read PostgreSQL until it loads');
        this.retry = setTimeout(() => void this.reloadAll(), delay);
        this.retry.unref();
      },
    );
    this.loading = load;
    return load;
  }

  private async load(generation: number): Promise<void> {
    let after: string | null = null;
    for (;;) {
      const startedAt = this.sequence;
      const rows = await this.repository.indexPage(after, LOAD_PAGE);
      if (generation !== this.generation) return;
      for (const row of rows) if (this.unchangedSince(row.id, row.uploader_id, startedAt)) this.put(row);
      if (rows.length < LOAD_PAGE) break;
      after = rows[rows.length - 1].id;
    }
    if (generation !== this.generation) return;
    // The orders, the map and the sample order are built once, at the end.
    const held = [...this.slots.held()];
    for (const order of Object.values(this.orders)) order.rebuild(held);
    for (const range of Object.values(this.ranges)) range.rebuild();
    this.map.rebuild(held.filter((slot) => this.onMap(slot)));
    for (const slot of held) this.addShuffled(slot);
    this.loaded = true;
    this.log.info({ items: this.slots.size() }, 'listing index loaded');
  }

  private unchangedSince(id: string, uploaderId: string, sequence: number): boolean {
    return (this.changedAt.get(id) ?? 0) <= sequence && (this.changedUploaderAt.get(uploaderId) ?? 0) <= sequence;
  }

  /** A change heard (here or from another node): reloads what it touched; resolves once done. */
  async changed(change: { kind: 'item'; contentId: string } | { kind: 'uploader'; userId: string } | { kind: 'all' }): Promise<void> {
    if (!this.enabled) return;
    if (change.kind === 'all') {
      await this.reloadAll();
      return;
    }
    const sequence = ++this.sequence;
    if (change.kind === 'item') this.changedAt.set(change.contentId, sequence);
    else this.changedUploaderAt.set(change.userId, sequence);
    this.pending++;
    try {
      const rows = change.kind === 'item' ? await this.repository.indexRow(change.contentId) : await this.repository.indexRowsOf(change.userId);
      const fresh = new Set<string>();
      for (const row of rows) {
        fresh.add(row.id);
        if (this.unchangedSince(row.id, row.uploader_id, sequence)) this.put(row);
      }
      // What is no longer listed goes.
      const gone = change.kind === 'item' ? [change.contentId] : this.idsOfUploader(change.userId);
      for (const id of gone) {
        const slot = this.slots.slot(id);
        const uploaderId = slot === undefined ? undefined : this.slots.rows[slot]?.uploader_id;
        if (!fresh.has(id) && uploaderId !== undefined && this.unchangedSince(id, uploaderId, sequence)) this.drop(id);
      }
    } catch (error) {
      // The item may be stale now: nothing is answered from here until everything is read again.
      this.log.error({ err: error }, 'listing index: an item could not be reloaded; reading everything again');
      void this.reloadAll();
    } finally {
      this.pending--;
      if (this.pending === 0) {
        this.changedAt.clear();
        this.changedUploaderAt.clear();
      }
    }
  }

  private idsOfUploader(userId: string): string[] {
    const code = this.slots.uploaders.find(userId);
    const ids: string[] = [];
    for (const slot of this.slots.held()) if (this.slots.uploader[slot] === code) ids.push(this.slots.ids[slot]!);
    return ids;
  }

  /** Whether a slot's item belongs on the map: published, with a position. */
  private onMap(slot: number): boolean {
    return this.slots.published[slot] === 1 && !Number.isNaN(this.slots.latitude[slot]);
  }

  /** Takes a slot out of the orders, the map and the words (before its values change). */
  private detach(slot: number): void {
    for (const order of Object.values(this.orders)) order.remove(slot);
    if (this.onMap(slot)) this.map.remove(slot);
    this.text.remove(slot);
  }

  private put(row: IndexRow): void {
    const old = this.slots.slot(row.id);
    // What the orders and the map hold of it now: only what changes moves (a reaction moves one order).
    const before = old === undefined ? null : { values: ORDERED.map((c) => this.orders[c].valueAt(old)), onMap: this.onMap(old), lat: this.slots.latitude[old], lng: this.slots.longitude[old] };
    const slot = this.slots.write(row);
    addSlot(this.heldBits, slot);
    if (this.slots.published[slot] === 1) addSlot(this.publishedBits, slot);
    else removeSlot(this.publishedBits, slot);
    // The title weighs more than the rest: the project names; the rest is the folded text the SQL search reads too.
    this.text.add(slot, (row.content_info ?? []).map((b) => b.project_name).join(' '), row.search_text ?? '');
    if (!this.loaded) return;
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

  private drop(id: string): void {
    const slot = this.slots.slot(id);
    if (slot === undefined) return;
    if (this.loaded) {
      this.detach(slot);
      this.removeShuffled(slot);
      for (const column of RANGE_COLUMNS) this.setRange(column, slot, NaN);
    } else this.text.remove(slot);
    removeSlot(this.heldBits, slot);
    removeSlot(this.publishedBits, slot);
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

  // ---- queries ----

  /** Each search term's matches, the fewest first (none: nothing matches); null without a search. */
  private termsOf(search: string | undefined): TermMatches[] | null {
    return search === undefined || search.trim() === '' ? null : this.text.termMatches(queryTermsOf(search));
  }

  /** The page `page` (1-based) of a listing, and its total (exact up to COUNT_EXACT). */
  page(query: IndexQuery, sort: IndexSort, page: number, perPage: number): IndexPage {
    const none: IndexPage = { rows: [], total: 0, hasMore: false };
    const terms = this.termsOf(query.search);
    if (terms && (terms.length === 0 || terms[0].count === 0)) return none;
    const words = wordsFor(this.slots.used);
    const areaFromMap = this.selectInto(this.selected, words, query, terms);
    const selected = this.selected;
    // With a residual test, the selected slots are an upper bound of the matches; without, they are the matches.
    const residual = this.residualOf(query, areaFromMap);
    const size = countSlots(selected, words);
    if (size === 0) return none;
    const test = residual ? (slot: number) => hasSlot(selected, slot) && residual.passes(slot) : (slot: number) => hasSlot(selected, slot);
    const offset = (page - 1) * perPage;
    const asc = sort.direction === 'asc';
    const relevance = sort.column === 'relevance' && terms !== null;
    const column: SortColumn = sort.column === 'relevance' ? 'created_at' : sort.column;
    const order = relevance ? this.orders.id : this.orders[column];
    const score = scoreOf(terms ?? []);
    const key = relevance
      ? (slot: number, rank: Int32Array) => (asc ? 1 : -1) * score(slot) * 2 ** 32 + (asc ? -1 : 1) * rank[slot]
      : (slot: number, rank: Int32Array) => (asc ? rank[slot] : -rank[slot]);
    // What to walk: the matches by relevance (kept for one term), or the column's order (only its
    // part within the range, when the range is on the sort column).
    const ranked = relevance && terms.length === 1 ? terms[0].ranked(order.order, order.ranks()) : null;
    if (size <= SORTED_CANDIDATES || (relevance && !ranked)) return this.sortedPage(words, residual, key, order, offset, perPage);
    const run = ranked ? { from: 0, to: ranked.length } : (this.rangeOf(column, query) ?? { from: 0, to: order.length });
    // A walk tests about (rows wanted) × (run length) / (selected) entries, a bit each; sorting
    // keys every selected item, several times the cost of a bit.
    if ((offset + perPage + 1) * (run.to - run.from) > WALK_COST * size * size) return this.sortedPage(words, residual, key, order, offset, perPage);
    const total = residual ? this.countPassing(words, size, residual) : size;
    const step = relevance === asc ? -1 : 1;
    return this.walk(ranked ?? order.order, run.from, run.to, step, test, offset, perPage, total);
  }

  /**
   * Writes into `into` the slots the query's search, ranges, area and "who may see" select (one
   * set of bits each, intersected). Returns whether the area was taken from the map (else a
   * viewport is left to the residual test).
   */
  private selectInto(into: Uint32Array, words: number, query: IndexQuery, terms: TermMatches[] | null): boolean {
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

  /**
   * What the selected bits leave to a test of each item: an owner's own unpublished items, a
   * caller's blocks, the filters kept as codes per item, a viewport not taken from the map. Null
   * when the bits say it all.
   */
  private residualOf(query: IndexQuery, areaFromMap: boolean): ItemFilter | null {
    const f = query.filters;
    const needed =
      query.visibility.kind === 'published-or-own' || (query.hidden?.size ?? 0) > 0 || Boolean(f.lang) || Boolean(f.unit_price) || Boolean(f.unit_area)
      || (f.amenities?.length ?? 0) > 0 || (f.apartment_type?.length ?? 0) > 0 || (f.project_status?.length ?? 0) > 0 || (Boolean(query.viewport) && !areaFromMap);
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

  /** A page from the few selected items: keyed (by rank in `order`), the first ones sorted; `total` exact. */
  private sortedPage(words: number, residual: ItemFilter | null, key: (slot: number, rank: Int32Array) => number, order: SlotOrder, offset: number, perPage: number): IndexPage {
    const rank = order.ranks();
    const { candidateSlots, candidateKeys } = this;
    let count = 0;
    forEachSlot(this.selected, words, (slot) => {
      if (residual && !residual.passes(slot)) return;
      candidateSlots[count] = slot;
      candidateKeys[count++] = key(slot, rank);
    });
    smallestFirst(candidateKeys, candidateSlots, count, offset + perPage + 1);
    const rows: ContentRow[] = [];
    for (let i = offset; i < Math.min(count, offset + perPage); i++) rows.push(this.slots.rows[candidateSlots[i]]!);
    return { rows, total: count, hasMore: count > offset + perPage };
  }

  /**
   * A page from walking `slots[from..to)` (step 1: forward, -1: backward) until the page is full
   * and one more item passes; `total` as counted, unless the walk reached the end (then exact).
   */
  private walk(slots: Int32Array, from: number, to: number, step: 1 | -1, passes: (slot: number) => boolean, offset: number, perPage: number, total: number): IndexPage {
    const wanted = offset + perPage + 1;
    const rows: ContentRow[] = [];
    let found = 0;
    for (let i = step === 1 ? from : to - 1; i >= from && i < to && found < wanted; i += step) {
      const slot = slots[i];
      if (!passes(slot)) continue;
      if (found >= offset && found < offset + perPage) rows.push(this.slots.rows[slot]!);
      found++;
    }
    const hasMore = found === wanted;
    return { rows, hasMore, total: hasMore ? Math.max(wanted, total) : found };
  }

  /** The run of a column's order within the query's range on that column, if it has one. */
  private rangeOf(column: SortColumn, query: IndexQuery): { from: number; to: number } | null {
    if (!isRangeColumn(column)) return null;
    const range = rangeBoundsOf(column, query);
    return range && this.orders[column].between(range.low, range.high);
  }

  /**
   * How many of the `size` selected items pass the residual test (CONTRACT §23: exact up to
   * COUNT_EXACT, above it an estimate within 10 %). Few are counted one by one; of many, the
   * items are read in the random order of `shuffled` until COUNT_SAMPLE passed, and the share
   * that passed gives an estimate within 10 % but for one time in a thousand (3 % is one standard
   * deviation). An estimate above COUNT_EXACT by a margin no sampling error reaches is answered;
   * anything else is counted to the end (or to COUNT_EXACT matches, where the estimate is within 1 %).
   */
  private countPassing(words: number, size: number, residual: ItemFilter): number {
    const selected = this.selected;
    let matched = 0;
    if (size <= COUNT_EXACT * ESTIMATE_MARGIN) {
      forEachSlot(selected, words, (slot) => {
        if (residual.passes(slot)) matched++;
      });
      return matched;
    }
    const { shuffled, shuffledLength } = this;
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

  /**
   * Facet counts (CONTRACT §23): each over the matches of every other filter. The items selected
   * by every condition kept as bits except the price range (itself a facet) are read, and each
   * says which facets' filters it fails.
   */
  facets(query: IndexQuery, names: readonly FacetName[]): Facets {
    const terms = this.termsOf(query.search);
    const s = this.slots;
    const wanted = names.reduce((bits, name) => bits | FACET_BIT[name], 0);
    const withoutPrice: IndexQuery = { ...query, filters: { ...query.filters, price_from: undefined, price_to: undefined } };
    // With no residual test the bits say everything but the price range: an item fails the price
    // facet's filter or nothing. Else the filter says which facets' filters an item fails.
    const residual = this.residualOf(withoutPrice, false);
    const filter = new ItemFilter(this.slots, query);
    const low = query.filters.price_from ?? -Infinity;
    const high = query.filters.price_to ?? Infinity;
    const failuresOf = residual === null
      ? (slot: number) => (s.price[slot] < low || s.price[slot] > high ? FACET_BIT.price : 0)
      : (slot: number) => filter.failures(slot, true);
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
      const words = wordsFor(this.slots.used);
      this.selectInto(this.selected, words, withoutPrice, terms);
      forEachSlot(this.selected, words, visit);
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

  /**
   * The published items in the box matching the query, clustered for the zoom (one cluster per
   * grid cell, at the mean position of its items; `id` on a single item); total: all of them.
   * Items of `hidden` uploaders (the caller's blocks) are left out.
   */
  clusters(query: IndexQuery, box: ClusterBox, hidden: ReadonlySet<string>): { clusters: Cluster[]; total: number } {
    const terms = this.termsOf(query.search);
    if (terms && (terms.length === 0 || terms[0].count === 0)) return { clusters: [], total: 0 };
    const select: IndexQuery = { visibility: { kind: 'published' }, filters: query.filters, hidden };
    const level = clusterLevel(box);
    const cells = cellsOf(box, level);
    const s = this.slots;
    const inBox = (slot: number) => {
      const lat = s.latitude[slot];
      const lng = s.longitude[slot];
      return lat >= box.minLat && lat <= box.maxLat && lng >= box.minLng && lng <= box.maxLng;
    };
    const clusters: Cluster[] = [];
    let total = 0;
    const cluster = (count: number, lat: number, lng: number, single: number) => {
      if (count === 0) return;
      total += count;
      // One item: its own position (a difference of running sums is off in the last digits).
      clusters.push(count === 1 ? { latitude: s.latitude[single], longitude: s.longitude[single], count: 1, id: s.ids[single]! } : { latitude: lat / count, longitude: lng / count, count });
    };
    if (!terms && !new ItemFilter(this.slots, select).filters && !hidden.size) {
      // Nothing but the box: each cell's count and position from the map order's runs.
      const mercator = mercatorBoxOf(box);
      for (const { x, y } of cells) {
        const t = this.map.totalIn(mercator, inBox, level, x, y, { count: 0, lat: 0, lng: 0, slot: -1 });
        cluster(t.count, t.lat, t.lng, t.slot);
      }
      return { clusters, total };
    }
    // The search and the filters as bits; what they leave (blocks, codes) tested item by item.
    const words = wordsFor(this.slots.used);
    this.selectInto(this.selected, words, select, terms);
    const selected = this.selected;
    const residual = this.residualOf(select, false);
    const passes = (slot: number) => hasSlot(selected, slot) && (residual === null || residual.passes(slot));
    const runs = cells.map((c) => this.map.run(level, c.x, c.y));
    const onMapInBox = runs.reduce((n, r) => n + r.to - r.from, 0);
    if (countSlots(selected, words) < onMapInBox) return this.clustersOfSelected(words, residual, level, inBox);
    for (const run of runs) {
      let count = 0;
      let lat = 0;
      let lng = 0;
      let single = -1;
      for (let i = run.from; i < run.to; i++) {
        const slot = this.map.order[i];
        if (!inBox(slot) || !passes(slot)) continue;
        count++;
        lat += s.latitude[slot];
        lng += s.longitude[slot];
        single = slot;
      }
      cluster(count, lat, lng, single);
    }
    return { clusters, total };
  }

  /** Clusters of fewer selected items than the box holds: each one's cell worked out, then grouped. */
  private clustersOfSelected(words: number, residual: ItemFilter | null, level: number, inBox: (slot: number) => boolean): { clusters: Cluster[]; total: number } {
    const s = this.slots;
    const cells = 2 ** level;
    const byCell = new Map<number, { lat: number; lng: number; count: number; slot: number; y: number; x: number }>();
    let total = 0;
    forEachSlot(this.selected, words, (slot) => {
      if (!this.onMap(slot) || !inBox(slot) || (residual !== null && !residual.passes(slot))) return;
      const x = cellOf(mercatorX(s.longitude[slot]), cells);
      const y = cellOf(mercatorY(s.latitude[slot]), cells);
      const key = y * cells + x;
      const cell = byCell.get(key);
      total++;
      if (cell) {
        cell.lat += s.latitude[slot];
        cell.lng += s.longitude[slot];
        cell.count++;
      } else byCell.set(key, { lat: s.latitude[slot], lng: s.longitude[slot], count: 1, slot, y, x });
    });
    const clusters = [...byCell.values()]
      .sort((a, b) => a.y - b.y || a.x - b.x)
      .map((c) => (c.count === 1 ? { latitude: c.lat, longitude: c.lng, count: 1, id: s.ids[c.slot]! } : { latitude: c.lat / c.count, longitude: c.lng / c.count, count: c.count }));
    return { clusters, total };
  }

  /** Resolves once the current load (if any) is over. */
  async settled(): Promise<void> {
    await this.loading;
  }
}
