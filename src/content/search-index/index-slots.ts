// Where the listing index keeps its items (docs/search.md, "Memory"): each item in a numbered
// slot, what queries compare in typed arrays (one per field, read without touching the item's
// row), strings turned into small numbers once (Codes), and the row a response is made from, as
// text outside the JS heap (row-arena.ts), decoded only for the items a page shows.
// Freed slots are used again, so the arrays grow with the most items ever held, not with churn.
import type { ContentRow } from '../content-repository.js';
import type { IndexRow, PageItem } from './index-types.js';
import { priceBucketOf } from './price-buckets.js';
import { RowArena } from './row-arena.js';
import { decodeRow, encodeRow } from './row-codec.js';
import { IdTable } from './id-table.js';

/** Small numbers for strings (languages, units, amenities, uploaders), given out once and kept. */
export class Codes {
  private readonly codes = new Map<string, number>();
  private readonly values: string[] = [];

  /** The value's code, given one if it has none. */
  of(value: string): number {
    let code = this.codes.get(value);
    if (code === undefined) {
      code = this.values.length;
      this.codes.set(value, code);
      this.values.push(value);
    }
    return code;
  }

  /** How many codes were given out (each below this). */
  get size(): number {
    return this.values.length;
  }

  /** The value a code was given out for. */
  valueAt(code: number): string {
    return this.values[code];
  }

  /** The value's code, or -1 when no item ever had it (so nothing can match it). */
  find(value: string): number {
    return this.codes.get(value) ?? -1;
  }
}

/** Languages as bits of a mask: at most this many different ones (SPEC has three). */
const MAX_LANGUAGES = 31;

const NO_CODES: readonly number[] = [];

/**
 * Lists of codes kept once for all the items that have the same one (items repeat a few
 * combinations of amenities, types and statuses), each for as long as an item has it.
 */
class SharedLists {
  private readonly kept = new Map<string, { list: readonly number[]; users: number }>();

  /** The list of these codes (sorted, without repeats), shared. */
  take(codes: readonly number[]): readonly number[] {
    if (codes.length === 0) return NO_CODES;
    const key = codes.join(',');
    let entry = this.kept.get(key);
    if (!entry) {
      entry = { list: Object.freeze([...codes]), users: 0 };
      this.kept.set(key, entry);
    }
    entry.users++;
    return entry.list;
  }

  /** An item no longer has the list. */
  give(list: readonly number[] | undefined): void {
    if (!list?.length) return;
    const key = list.join(',');
    const entry = this.kept.get(key)!;
    if (--entry.users === 0) this.kept.delete(key);
  }
}

/** Writes of rows so far in this process: each write's number tells it apart from every other one. */
let writes = 0;

export class ItemSlots {
  /** Slots ever used (the arrays' used length); some of them may be free. */
  used = 0;
  private capacity = 0;
  private readonly free: number[] = [];
  /** The items' ids, and the slot of each (id-table.ts). */
  private readonly ids = new IdTable();

  readonly languages = new Codes();
  readonly units = new Codes();
  readonly amenities = new Codes();
  readonly apartmentTypes = new Codes();
  readonly projectStatuses = new Codes();
  readonly uploaders = new Codes();
  /** The price facet's buckets, by their lower bound (price-buckets.ts). */
  readonly priceBuckets = new Codes();

  /** The rows as text (row-codec.ts), read through `row`; each write's number in `version` (0: a free slot). */
  private readonly rows = new RowArena();
  private version = new Float64Array(0);
  private readonly lists = new SharedLists();
  /** Each slot's codes, sorted: lists shared by the slots with the same codes (never changed in place). */
  amenityCodes: (readonly number[])[] = [];
  apartmentTypeCodes: (readonly number[])[] = [];
  projectStatusCodes: (readonly number[])[] = [];
  published = new Uint8Array(0);
  uploader = new Int32Array(0);
  unitPrice = new Int32Array(0);
  unitArea = new Int32Array(0);
  langMask = new Int32Array(0);
  price = new Float64Array(0);
  /** The code of the price's facet bucket (priceBuckets). */
  priceBucket = new Int32Array(0);
  area = new Float64Array(0);
  pricePerArea = new Float64Array(0);
  createdUs = new Float64Array(0);
  updatedUs = new Float64Array(0);
  reactionCount = new Float64Array(0);
  /** NaN when the item has no position. */
  latitude = new Float64Array(0);
  longitude = new Float64Array(0);

  /** Called with the new capacity whenever the arrays grow, so the other parts can grow theirs. */
  constructor(private readonly grown: (capacity: number) => void) {}

  /** Items held. */
  size(): number {
    return this.ids.size();
  }

  slot(id: string): number | undefined {
    return this.ids.find(id);
  }

  /** The id of a held slot's item. */
  idOf(slot: number): string {
    return this.ids.idOf(slot);
  }

  /** The order of two held slots' ids (the ids' text order, as PostgreSQL orders uuids). */
  compareIds(a: number, b: number): number {
    return this.ids.compare(a, b);
  }

  /** The slot of every item held, lowest first. */
  *held(): IterableIterator<number> {
    for (let slot = 0; slot < this.used; slot++) if (this.version[slot] !== 0) yield slot;
  }

  /** Writes a row into its item's slot (a new slot for a new item); returns the slot. */
  write(row: IndexRow): number {
    let slot = this.ids.find(row.id);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.used++;
      if (slot >= this.capacity) this.grow();
      this.ids.add(row.id, slot);
    }
    // Only what a response shows stays in the row: the index's own columns are read once here.
    const { created_us, updated_us, langs, facet_apartment_types, facet_project_statuses, search_text, ...content } = row;
    void search_text;
    this.rows.write(slot, encodeRow(content));
    this.version[slot] = ++writes;
    this.published[slot] = row.status === 'completed' ? 1 : 0;
    this.uploader[slot] = this.uploaders.of(row.uploader_id);
    this.unitPrice[slot] = this.units.of(row.unit_price);
    this.unitArea[slot] = this.units.of(row.unit_area);
    this.langMask[slot] = this.languageMask(langs ?? []);
    this.price[slot] = Number(row.price);
    this.priceBucket[slot] = this.priceBuckets.of(String(priceBucketOf(this.price[slot]).from));
    this.area[slot] = Number(row.area);
    this.pricePerArea[slot] = Number(row.price_per_area);
    this.createdUs[slot] = Number(created_us);
    this.updatedUs[slot] = Number(updated_us);
    this.reactionCount[slot] = Number(row.reaction_count);
    this.latitude[slot] = row.latitude === null || row.longitude === null ? NaN : Number(row.latitude);
    this.longitude[slot] = row.latitude === null || row.longitude === null ? NaN : Number(row.longitude);
    this.setCodes(slot, row.amenities, facet_apartment_types, facet_project_statuses);
    return slot;
  }

  /** Frees an item's slot; returns it (undefined when the item is not held). */
  release(id: string): number | undefined {
    const slot = this.ids.find(id);
    if (slot === undefined) return undefined;
    this.ids.remove(slot);
    this.version[slot] = 0;
    this.rows.free(slot);
    this.setCodes(slot, null, null, null);
    this.free.push(slot);
    return slot;
  }

  /** The row of a held slot, decoded (a new object each time). */
  row(slot: number): ContentRow {
    return decodeRow(this.rows.read(slot));
  }

  /** A held slot as a page shows it: its row is decoded when asked, before the index changes. */
  pageItem(slot: number): PageItem {
    return { id: this.ids.idOf(slot), version: this.version[slot], row: () => this.row(slot) };
  }

  private setCodes(slot: number, amenities: readonly string[] | null, types: readonly string[] | null, statuses: readonly string[] | null): void {
    const { lists } = this;
    lists.give(this.amenityCodes[slot]);
    lists.give(this.apartmentTypeCodes[slot]);
    lists.give(this.projectStatusCodes[slot]);
    this.amenityCodes[slot] = lists.take(codesOf(this.amenities, amenities));
    this.apartmentTypeCodes[slot] = lists.take(codesOf(this.apartmentTypes, types));
    this.projectStatusCodes[slot] = lists.take(codesOf(this.projectStatuses, statuses));
  }

  /** The bit of a language in langMask; 0 for a language no item has (nothing matches it). */
  languageBit(lang: string): number {
    const code = this.languages.find(lang);
    return code < 0 || code >= MAX_LANGUAGES ? 0 : 1 << code;
  }

  private languageMask(langs: readonly string[]): number {
    let mask = 0;
    for (const lang of langs) {
      const code = this.languages.of(lang);
      if (code < MAX_LANGUAGES) mask |= 1 << code;
    }
    return mask;
  }

  private grow(): void {
    const capacity = Math.max(1024, this.capacity * 2);
    const widen = <T extends Float64Array | Int32Array | Uint8Array>(old: T, make: (n: number) => T): T => {
      const next = make(capacity);
      next.set(old);
      return next;
    };
    this.published = widen(this.published, (n) => new Uint8Array(n));
    this.uploader = widen(this.uploader, (n) => new Int32Array(n));
    this.unitPrice = widen(this.unitPrice, (n) => new Int32Array(n));
    this.unitArea = widen(this.unitArea, (n) => new Int32Array(n));
    this.langMask = widen(this.langMask, (n) => new Int32Array(n));
    this.price = widen(this.price, (n) => new Float64Array(n));
    this.priceBucket = widen(this.priceBucket, (n) => new Int32Array(n));
    this.area = widen(this.area, (n) => new Float64Array(n));
    this.pricePerArea = widen(this.pricePerArea, (n) => new Float64Array(n));
    this.createdUs = widen(this.createdUs, (n) => new Float64Array(n));
    this.updatedUs = widen(this.updatedUs, (n) => new Float64Array(n));
    this.reactionCount = widen(this.reactionCount, (n) => new Float64Array(n));
    this.latitude = widen(this.latitude, (n) => new Float64Array(n));
    this.longitude = widen(this.longitude, (n) => new Float64Array(n));
    this.version = widen(this.version, (n) => new Float64Array(n));
    this.rows.grow(capacity);
    this.ids.grow(capacity);
    this.capacity = capacity;
    this.grown(capacity);
  }
}

/** A list's values as codes, sorted, without repeats (lower case for the facet lists, as stored). */
function codesOf(codes: Codes, values: readonly string[] | null | undefined): readonly number[] {
  if (!values?.length) return NO_CODES;
  return [...new Set(values.map((v) => codes.of(v)))].sort((a, b) => a - b);
}
