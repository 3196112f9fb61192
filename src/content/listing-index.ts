// The per-node listing index (CONTRACT §23, docs/search.md): every listed item (listedConditions,
// the one rule the SQL listings use too) held in memory with its row, kept in order by each sort
// column, its words in a radix tree (MiniSearch's SearchableMap), so any `/all` or `/completed` query, a facet count or a
// map cluster is answered without PostgreSQL. PostgreSQL stays the truth: the index is loaded
// from it in pages at start, and every change of a listed item, on any node, reloads that item
// (the read model's item changes). While it loads, while a reload is under way, while this node
// may miss another's changes, or with LISTING_INDEX=off, `ready()` is false and the listings ask
// PostgreSQL as before.
import SearchableMap from 'minisearch/SearchableMap';
import type { Logger } from '../shared/logger.js';
import type { ContentRow } from './content-repository.js';
import type { ContentListingRepository, IndexRow, ListingFilters, ListingVisibility, SortColumn } from './listing-repository.js';
import { indexTermsOf, prefixAllowed, queryTermsOf, typoAllowed, withinOneEdit } from './search-text.js';
import type { Viewport } from './viewport.js';

/** An item as the index keeps it: the row the answers are made from, and what queries compare. */
interface Item {
  id: string;
  row: ContentRow;
  uploaderId: string;
  published: boolean;
  createdUs: number;
  updatedUs: number;
  price: number;
  area: number;
  pricePerArea: number;
  reactionCount: number;
  unitPrice: string;
  unitArea: string;
  langs: readonly string[];
  amenities: ReadonlySet<string>;
  apartmentTypes: readonly string[];
  projectStatuses: readonly string[];
  latitude: number | null;
  longitude: number | null;
}

interface TextDocument {
  id: string;
  title: string;
  body: string;
}

// How much a query term's match weighs in relevance: in a title, ×TITLE_BOOST; a whole word 1, the
// beginning of a word PREFIX_WEIGHT, a word one typo away TYPO_WEIGHT. So a title word comes before
// a description word, and a whole word before part of one (CONTRACT §23).
const IN_TITLE = 1;
const IN_BODY = 2;
const TITLE_BOOST = 4;
const PREFIX_WEIGHT = 0.5;
const TYPO_WEIGHT = 0.3;

/**
 * The words of every item, in a radix tree (MiniSearch's SearchableMap: exact, prefix and
 * edit-distance lookups of words), each with the items it occurs in and where (title, body).
 */
class TermIndex {
  private readonly words = new SearchableMap<Map<string, number>>();
  private readonly wordsOf = new Map<string, string[]>();

  add(doc: TextDocument): void {
    this.remove(doc.id);
    const where = new Map<string, number>();
    for (const word of indexTermsOf(doc.title)) where.set(word, (where.get(word) ?? 0) | IN_TITLE);
    for (const word of indexTermsOf(doc.body)) where.set(word, (where.get(word) ?? 0) | IN_BODY);
    for (const [word, fields] of where) this.words.fetch(word, () => new Map()).set(doc.id, fields);
    this.wordsOf.set(doc.id, [...where.keys()]);
  }

  remove(id: string): void {
    for (const word of this.wordsOf.get(id) ?? []) {
      const postings = this.words.get(word);
      postings?.delete(id);
      if (postings && postings.size === 0) this.words.delete(word);
    }
    this.wordsOf.delete(id);
  }

  /** The items matching every term, with their relevance (the sum of each term's best match). */
  search(terms: string[]): Map<string, number> {
    let matched: Map<string, number> | null = null;
    for (const term of terms) {
      const scores = new Map<string, number>();
      const previous: Map<string, number> | null = matched;
      const consider = (postings: Map<string, number>, weight: number) => {
        const score = (fields: number) => weight * (fields & IN_TITLE ? TITLE_BOOST : 1);
        const keep = (id: string, fields: number) => {
          const s = score(fields);
          if (s > (scores.get(id) ?? 0)) scores.set(id, s);
        };
        if (previous && previous.size < postings.size) {
          for (const id of previous.keys()) {
            const fields = postings.get(id);
            if (fields !== undefined) keep(id, fields);
          }
        } else {
          for (const [id, fields] of postings) if (!previous || previous.has(id)) keep(id, fields);
        }
      };
      const exact = this.words.get(term);
      if (exact) consider(exact, 1);
      if (prefixAllowed(term)) {
        for (const [word, postings] of this.words.atPrefix(term)) if (word !== term) consider(postings, PREFIX_WEIGHT);
      }
      if (typoAllowed(term)) {
        // Levenshtein 2 reaches a swap of two letters too; the one-edit rule is checked here.
        for (const [word, [postings]] of this.words.fuzzyGet(term, 2)) {
          if (word !== term && !word.startsWith(term) && withinOneEdit(term, word)) consider(postings, TYPO_WEIGHT);
        }
      }
      if (previous) for (const [id, s] of scores) scores.set(id, s + (previous.get(id) ?? 0));
      matched = scores;
      if (matched.size === 0) break;
    }
    return matched ?? new Map();
  }
}

export const FACETS = ['amenities', 'apartment_type', 'project_status', 'price'] as const;
export type FacetName = (typeof FACETS)[number];

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

/** What a query selects: who asks, the search, the filters, and optionally an area. */
export interface IndexQuery {
  visibility: ListingVisibility;
  search?: string;
  filters: ListingFilters;
  viewport?: Viewport | null;
}

export interface IndexPage {
  rows: ContentRow[];
  hasMore: boolean;
  total: number;
}

/** A map box (no antimeridian crossing: min_lng ≤ max_lng) and a zoom. */
export interface ClusterBox {
  minLat: number;
  minLng: number;
  maxLat: number;
  maxLng: number;
  zoom: number;
}

export interface Cluster {
  latitude: number;
  longitude: number;
  count: number;
  id?: string;
}

const SORT_VALUES: Record<SortColumn, (item: Item) => number> = {
  created_at: (i) => i.createdUs,
  updated_at: (i) => i.updatedUs,
  price: (i) => i.price,
  area: (i) => i.area,
  price_per_area: (i) => i.pricePerArea,
  reaction_count: (i) => i.reactionCount,
};
const SORT_COLUMNS = Object.keys(SORT_VALUES) as SortColumn[];

/** PostgreSQL's uuid order is the order of their lower-case text. */
const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Items in ascending (value, id) order of one column, kept sorted as items come and go. */
class SortedItems {
  items: Item[] = [];
  constructor(private readonly value: (item: Item) => number) {}

  compare(a: Item, b: Item): number {
    return this.value(a) - this.value(b) || compareIds(a.id, b.id);
  }

  private position(item: Item): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(this.items[mid], item) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(item: Item): void {
    this.items.splice(this.position(item), 0, item);
  }

  /** Removes the very object `item` (found by the values it was inserted with). */
  remove(item: Item): void {
    const at = this.position(item);
    if (this.items[at] === item) this.items.splice(at, 1);
    else {
      const found = this.items.indexOf(item);
      if (found >= 0) this.items.splice(found, 1);
    }
  }

  rebuild(all: Iterable<Item>): void {
    this.items = [...all].sort((a, b) => this.compare(a, b));
  }
}

function itemOf(row: IndexRow): Item {
  // Only what a response shows stays in the row: the index's own columns are read once here.
  const { created_us, updated_us, langs, facet_apartment_types, facet_project_statuses, search_text, ...content } = row;
  void search_text;
  return {
    id: row.id,
    row: content,
    uploaderId: row.uploader_id,
    published: row.status === 'completed',
    createdUs: Number(created_us),
    updatedUs: Number(updated_us),
    price: Number(row.price),
    area: Number(row.area),
    pricePerArea: Number(row.price_per_area),
    reactionCount: Number(row.reaction_count),
    unitPrice: row.unit_price,
    unitArea: row.unit_area,
    langs: langs ?? [],
    amenities: new Set(row.amenities ?? []),
    apartmentTypes: facet_apartment_types ?? [],
    projectStatuses: facet_project_statuses ?? [],
    latitude: row.latitude === null ? null : Number(row.latitude),
    longitude: row.longitude === null ? null : Number(row.longitude),
  };
}

function textOf(row: IndexRow): TextDocument {
  return {
    id: row.id,
    title: (row.content_info ?? []).map((b) => b.project_name).join(' '),
    // The folded text the SQL search reads too: every language block's fields, tags, amenities.
    body: row.search_text ?? '',
  };
}

/**
 * Who sees an item, as visibilityCondition says in SQL: everyone the published ones, a user also
 * their own in any state, holders of update:any_content every listed item.
 */
function visibleTo(item: Item, visibility: ListingVisibility): boolean {
  switch (visibility.kind) {
    case 'published':
      return item.published;
    case 'published-or-own':
      return item.published || item.uploaderId === visibility.userId;
    case 'every':
      return true;
  }
}

interface Check {
  /** The facet this filter belongs to (a facet's counts ignore its own filter). */
  facet: FacetName | null;
  test: (item: Item) => boolean;
}

/** The filters of `/all`, as filterConditions writes them in SQL. */
function checksOf(f: ListingFilters, viewport: Viewport | null | undefined): Check[] {
  const checks: Check[] = [];
  const add = (facet: FacetName | null, test: (item: Item) => boolean) => checks.push({ facet, test });
  if (f.lang) {
    const lang = f.lang;
    add(null, (i) => i.langs.includes(lang));
  }
  const { price_from: priceFrom, price_to: priceTo, area_from: areaFrom, area_to: areaTo } = f;
  if (priceFrom !== undefined) add('price', (i) => i.price >= priceFrom);
  if (priceTo !== undefined) add('price', (i) => i.price <= priceTo);
  if (areaFrom !== undefined) add(null, (i) => i.area >= areaFrom);
  if (areaTo !== undefined) add(null, (i) => i.area <= areaTo);
  if (f.unit_price) {
    const unit = f.unit_price;
    add(null, (i) => i.unitPrice === unit);
  }
  if (f.unit_area) {
    const unit = f.unit_area;
    add(null, (i) => i.unitArea === unit);
  }
  // amenities: the item has every one listed; apartment_type / project_status: any one listed.
  if (f.amenities?.length) {
    const wanted = f.amenities;
    add('amenities', (i) => wanted.every((a) => i.amenities.has(a)));
  }
  if (f.apartment_type?.length) {
    const wanted = new Set(f.apartment_type.map((v) => v.toLowerCase()));
    add('apartment_type', (i) => i.apartmentTypes.some((v) => wanted.has(v)));
  }
  if (f.project_status?.length) {
    const wanted = new Set(f.project_status.map((v) => v.toLowerCase()));
    add('project_status', (i) => i.projectStatuses.some((v) => wanted.has(v)));
  }
  if (f.created_at_start_date) {
    const from = f.created_at_start_date.getTime() * 1000;
    add(null, (i) => i.createdUs >= from);
  }
  if (f.created_at_end_date) {
    const to = f.created_at_end_date.getTime() * 1000;
    add(null, (i) => i.createdUs <= to);
  }
  if (viewport) {
    const v = viewport;
    add(null, (i) => i.latitude !== null && i.longitude !== null && i.latitude >= v.south && i.latitude <= v.north
      && (v.west <= v.east ? i.longitude >= v.west && i.longitude <= v.east : i.longitude >= v.west || i.longitude <= v.east));
  }
  return checks;
}

const passes = (item: Item, checks: Check[]): boolean => {
  for (const check of checks) if (!check.test(item)) return false;
  return true;
};

/**
 * The price buckets of the price facet: 1, 2 and 5 times each power of ten (`[1, 2)`, `[2, 5)`,
 * `[5, 10)`, `[10, 20)`, …), whatever the currency, and `[0, 1)` below them. An item's bucket
 * start for its price.
 */
export function priceBucketOf(price: number): { from: number; to: number } {
  if (price < 1) return { from: 0, to: 1 };
  let power = 10 ** Math.floor(Math.log10(price));
  if (power * 10 <= price) power *= 10; // log10 rounding just below a power of ten
  if (power > price) power /= 10;
  const steps = [1, 2, 5, 10];
  for (let s = 0; s < 3; s++) {
    if (price < steps[s + 1] * power) return { from: steps[s] * power, to: steps[s + 1] * power };
  }
  return { from: 5 * power, to: 10 * power };
}

// ---- map clusters: a grid in web-mercator space whose cells halve zoom by zoom ----

/** At most this many clusters or points in one answer (CONTRACT §23). */
export const MAX_CLUSTERS = 300;
/** Cells per tile side: at zoom z the grid has 2^(z+2) cells across the world (64 px cells on 256 px tiles). */
const CELL_LEVELS_PER_ZOOM = 2;
const MAX_MERCATOR_LAT = 85.05112878;

const mercatorX = (lng: number): number => (lng + 180) / 360;
function mercatorY(lat: number): number {
  const clamped = Math.max(-MAX_MERCATOR_LAT, Math.min(MAX_MERCATOR_LAT, lat));
  const sin = Math.sin((clamped * Math.PI) / 180);
  return 0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI);
}
const cellOf = (value: number, cells: number): number => Math.min(cells - 1, Math.max(0, Math.floor(value * cells)));

/**
 * The grid level of a box at a zoom: zoom + 2 levels (64 px cells), coarser when the box would
 * span more than MAX_CLUSTERS cells. Cells of level L + 1 lie inside those of level L, and a
 * larger zoom never gives a coarser level for the same box, so zoom z + 1's clusters split zoom
 * z's.
 */
export function clusterLevel(box: ClusterBox): number {
  let level = box.zoom + CELL_LEVELS_PER_ZOOM;
  const spanned = (l: number) => {
    const cells = 2 ** l;
    const wide = cellOf(mercatorX(box.maxLng), cells) - cellOf(mercatorX(box.minLng), cells) + 1;
    const high = cellOf(mercatorY(box.minLat), cells) - cellOf(mercatorY(box.maxLat), cells) + 1;
    return wide * high;
  };
  while (level > 0 && spanned(level) > MAX_CLUSTERS) level--;
  return level;
}

/** The clusters of points at a grid level: one per cell, at the mean position of its items; `id` on a single item. */
export function clusterPoints(points: Iterable<{ id: string; latitude: number; longitude: number }>, level: number): Cluster[] {
  const cells = 2 ** level;
  const byCell = new Map<number, { lat: number; lng: number; count: number; id: string; y: number; x: number }>();
  for (const p of points) {
    const x = cellOf(mercatorX(p.longitude), cells);
    const y = cellOf(mercatorY(p.latitude), cells);
    const key = y * cells + x;
    const cell = byCell.get(key);
    if (cell) {
      cell.lat += p.latitude;
      cell.lng += p.longitude;
      cell.count++;
    } else byCell.set(key, { lat: p.latitude, lng: p.longitude, count: 1, id: p.id, y, x });
  }
  return [...byCell.values()]
    .sort((a, b) => a.y - b.y || a.x - b.x)
    .map((c) => (c.count === 1 ? { latitude: c.lat, longitude: c.lng, count: 1, id: c.id } : { latitude: c.lat / c.count, longitude: c.lng / c.count, count: c.count }));
}

const LOAD_PAGE = 2_000;

export class ListingIndex {
  private readonly items = new Map<string, Item>();
  private readonly sorted = new Map<SortColumn, SortedItems>(SORT_COLUMNS.map((c) => [c, new SortedItems(SORT_VALUES[c])]));
  private text = new TermIndex();
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

  constructor(
    private readonly repository: ContentListingRepository,
    private readonly enabled: boolean,
    private readonly hears: () => boolean,
    private readonly log: Logger,
  ) {}

  /** Whether queries may be answered from here now. */
  ready(): boolean {
    return this.enabled && this.loaded && this.pending === 0 && this.hears();
  }

  /** Items held (for /metrics and the docs' memory figures). */
  size(): number {
    return this.items.size;
  }

  /** Starts loading (resolves when loaded; a failed load is logged and leaves the index off until the next change of everything). */
  start(): Promise<void> {
    if (!this.enabled) return Promise.resolve();
    return this.reloadAll();
  }

  /** Loads everything again (after `everything` was invalidated, or a bulk write behind the service). */
  reloadAll(): Promise<void> {
    if (!this.enabled) return Promise.resolve();
    const generation = ++this.generation;
    this.loaded = false;
    this.items.clear();
    this.loadTexts.clear();
    const load = this.load(generation).catch((error: unknown) => {
      if (generation === this.generation) this.log.error({ err: error }, 'listing index: load failed; listings read PostgreSQL');
    });
    this.loading = load;
    return load;
  }

  private async load(generation: number): Promise<void> {
    let after: string | null = null;
    for (;;) {
      const startedAt = this.sequence;
      const rows = await this.repository.indexPage(after, LOAD_PAGE);
      if (generation !== this.generation) return;
      for (const row of rows) {
        if (!this.unchangedSince(row.id, row.uploader_id, startedAt)) continue;
        this.items.set(row.id, itemOf(row));
        this.loadTexts.set(row.id, textOf(row));
      }
      if (rows.length < LOAD_PAGE) break;
      after = rows[rows.length - 1].id;
    }
    if (generation !== this.generation) return;
    this.text = new TermIndex();
    for (const [id, doc] of this.loadTexts) if (this.items.has(id)) this.text.add(doc);
    this.loadTexts.clear();
    for (const list of this.sorted.values()) list.rebuild(this.items.values());
    this.loaded = true;
    this.log.info({ items: this.items.size }, 'listing index loaded');
  }

  /** The text of the items read while loading (by the load and by item reloads); indexed when the load ends. */
  private readonly loadTexts = new Map<string, TextDocument>();

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
      const gone = change.kind === 'item'
        ? [change.contentId]
        : [...this.items.values()].filter((i) => i.uploaderId === change.userId).map((i) => i.id);
      for (const id of gone) {
        const item = this.items.get(id);
        if (!fresh.has(id) && item && this.unchangedSince(id, item.uploaderId, sequence)) this.drop(id);
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

  private put(row: IndexRow): void {
    const item = itemOf(row);
    const old = this.items.get(item.id);
    this.items.set(item.id, item);
    if (!this.loaded) {
      this.loadTexts.set(item.id, textOf(row));
      return;
    }
    for (const list of this.sorted.values()) {
      if (old) list.remove(old);
      list.insert(item);
    }
    this.text.add(textOf(row));
  }

  private drop(id: string): void {
    const old = this.items.get(id);
    if (!old) return;
    this.items.delete(id);
    if (!this.loaded) {
      this.loadTexts.delete(id);
      return;
    }
    for (const list of this.sorted.values()) list.remove(old);
    this.text.remove(id);
  }

  // ---- queries ----

  /**
   * The items matching the search, with their relevance: every term must match (as typed, its
   * beginning, or within one edit for 5+ letters). Null: no search given.
   */
  private searched(search: string | undefined): Map<string, number> | null {
    if (search === undefined || search.trim() === '') return null;
    const terms = queryTermsOf(search);
    return terms.length === 0 ? new Map() : this.text.search(terms);
  }

  /** The page `page` (1-based) of a listing, and the exact total. */
  page(query: IndexQuery, sort: IndexSort, page: number, perPage: number): IndexPage {
    const checks = checksOf(query.filters, query.viewport);
    const scores = this.searched(query.search);
    const offset = (page - 1) * perPage;
    const wanted = (item: Item | undefined): item is Item => !!item && visibleTo(item, query.visibility) && passes(item, checks);

    if (sort.column === 'relevance' && scores) {
      const matches = [...scores.keys()].map((id) => this.items.get(id)).filter(wanted);
      const score = (i: Item) => scores.get(i.id) ?? 0;
      matches.sort((a, b) => score(b) - score(a) || compareIds(a.id, b.id));
      if (sort.direction === 'asc') matches.reverse();
      return this.slice(matches, offset, perPage);
    }
    const column: SortColumn = sort.column === 'relevance' ? 'created_at' : sort.column;
    const list = this.sorted.get(column)!;
    // A narrow search: sort its matches; otherwise walk the column's order.
    if (scores && scores.size * 8 < this.items.size) {
      const matches = [...scores.keys()].map((id) => this.items.get(id)).filter(wanted);
      matches.sort((a, b) => list.compare(a, b));
      if (sort.direction === 'desc') matches.reverse();
      return this.slice(matches, offset, perPage);
    }
    const rows: ContentRow[] = [];
    let total = 0;
    const items = list.items;
    const take = (item: Item) => {
      if ((scores && !scores.has(item.id)) || !wanted(item)) return;
      if (total >= offset && total < offset + perPage) rows.push(item.row);
      total++;
    };
    if (sort.direction === 'asc') for (let i = 0; i < items.length; i++) take(items[i]);
    else for (let i = items.length - 1; i >= 0; i--) take(items[i]);
    return { rows, total, hasMore: total > offset + perPage };
  }

  private slice(matches: Item[], offset: number, perPage: number): IndexPage {
    return {
      rows: matches.slice(offset, offset + perPage).map((i) => i.row),
      total: matches.length,
      hasMore: matches.length > offset + perPage,
    };
  }

  /** The candidates of a query before its filters: the search's matches, or every item. */
  private candidates(scores: Map<string, number> | null): Iterable<Item> {
    if (!scores) return this.items.values();
    const items: Item[] = [];
    for (const id of scores.keys()) {
      const item = this.items.get(id);
      if (item) items.push(item);
    }
    return items;
  }

  /** Facet counts (CONTRACT §23): each over the matches of every other filter. */
  facets(query: IndexQuery, names: readonly FacetName[]): Facets {
    const checks = checksOf(query.filters, query.viewport);
    const scores = this.searched(query.search);
    const want = new Set(names);
    const counts = {
      amenities: new Map<string, number>(),
      apartment_type: new Map<string, number>(),
      project_status: new Map<string, number>(),
      price: new Map<number, { from: number; to: number; count: number }>(),
    };
    const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
    for (const item of this.candidates(scores)) {
      if (!visibleTo(item, query.visibility)) continue;
      // The one facet whose own filter alone it fails (it still counts there), or none.
      let failedFacet: FacetName | null = null;
      let failures = 0;
      for (const check of checks) {
        if (check.test(item)) continue;
        if (check.facet === null || (failedFacet !== null && failedFacet !== check.facet)) {
          failures = 2;
          break;
        }
        failedFacet = check.facet;
        failures = 1;
      }
      if (failures > 1) continue;
      const counted = (facet: FacetName) => want.has(facet) && (failures === 0 || failedFacet === facet);
      if (counted('amenities')) for (const a of item.amenities) bump(counts.amenities, a);
      if (counted('apartment_type')) for (const t of item.apartmentTypes) bump(counts.apartment_type, t);
      if (counted('project_status')) for (const s of item.projectStatuses) bump(counts.project_status, s);
      if (counted('price')) {
        const bucket = priceBucketOf(item.price);
        const kept = counts.price.get(bucket.from);
        if (kept) kept.count++;
        else counts.price.set(bucket.from, { ...bucket, count: 1 });
      }
    }
    const facets: Facets = {};
    if (want.has('amenities')) facets.amenities = Object.fromEntries(counts.amenities);
    if (want.has('apartment_type')) facets.apartment_type = Object.fromEntries(counts.apartment_type);
    if (want.has('project_status')) facets.project_status = Object.fromEntries(counts.project_status);
    if (want.has('price')) facets.price = [...counts.price.values()].sort((a, b) => a.from - b.from);
    return facets;
  }

  /**
   * The published items in the box matching the query, clustered for the zoom; total: all of
   * them. Items of `hidden` uploaders (the caller's blocks) are left out.
   */
  clusters(query: IndexQuery, box: ClusterBox, hidden: ReadonlySet<string>): { clusters: Cluster[]; total: number } {
    const checks = checksOf(query.filters, { south: box.minLat, north: box.maxLat, west: box.minLng, east: box.maxLng });
    const scores = this.searched(query.search);
    const points: { id: string; latitude: number; longitude: number }[] = [];
    for (const item of this.candidates(scores)) {
      if (item.published && !hidden.has(item.uploaderId) && passes(item, checks) && item.latitude !== null && item.longitude !== null) {
        points.push({ id: item.id, latitude: item.latitude, longitude: item.longitude });
      }
    }
    return { clusters: clusterPoints(points, clusterLevel(box)), total: points.length };
  }

  /** Resolves once the current load (if any) is over. */
  async settled(): Promise<void> {
    await this.loading;
  }
}
