// Where the listing index keeps its items (docs/search.md, "Memory"): each item in a numbered
// slot, what queries compare in typed arrays (one per field, read without touching the item's
// row), strings turned into small numbers once (Codes), and the row a response is made from.
// Freed slots are used again, so the arrays grow with the most items ever held, not with churn.
import type { ContentRow } from '../content-repository.js';
import type { IndexRow } from './index-types.js';
import { priceBucketOf } from './price-buckets.js';

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

export class ItemSlots {
  /** Slots ever used (the arrays' used length); some of them may be free. */
  used = 0;
  private capacity = 0;
  private readonly free: number[] = [];
  private readonly slotOf = new Map<string, number>();

  readonly languages = new Codes();
  readonly units = new Codes();
  readonly amenities = new Codes();
  readonly apartmentTypes = new Codes();
  readonly projectStatuses = new Codes();
  readonly uploaders = new Codes();
  /** The price facet's buckets, by their lower bound (price-buckets.ts). */
  readonly priceBuckets = new Codes();

  ids: (string | undefined)[] = [];
  rows: (ContentRow | undefined)[] = [];
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
    return this.slotOf.size;
  }

  slot(id: string): number | undefined {
    return this.slotOf.get(id);
  }

  /** The slot of every item held. */
  held(): IterableIterator<number> {
    return this.slotOf.values();
  }

  /** Writes a row into its item's slot (a new slot for a new item); returns the slot. */
  write(row: IndexRow): number {
    let slot = this.slotOf.get(row.id);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.used++;
      if (slot >= this.capacity) this.grow();
      this.slotOf.set(row.id, slot);
    }
    // Only what a response shows stays in the row: the index's own columns are read once here.
    const { created_us, updated_us, langs, facet_apartment_types, facet_project_statuses, search_text, ...content } = row;
    void search_text;
    this.ids[slot] = row.id;
    this.rows[slot] = content;
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
    this.amenityCodes[slot] = codesOf(this.amenities, row.amenities);
    this.apartmentTypeCodes[slot] = codesOf(this.apartmentTypes, facet_apartment_types);
    this.projectStatusCodes[slot] = codesOf(this.projectStatuses, facet_project_statuses);
    return slot;
  }

  /** Frees an item's slot; returns it (undefined when the item is not held). */
  release(id: string): number | undefined {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return undefined;
    this.slotOf.delete(id);
    this.ids[slot] = undefined;
    this.rows[slot] = undefined;
    this.amenityCodes[slot] = NO_CODES;
    this.apartmentTypeCodes[slot] = NO_CODES;
    this.projectStatusCodes[slot] = NO_CODES;
    this.free.push(slot);
    return slot;
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
    this.capacity = capacity;
    this.grown(capacity);
  }
}

/** A list's values as codes, sorted, without repeats (lower case for the facet lists, as stored). */
function codesOf(codes: Codes, values: readonly string[] | null | undefined): readonly number[] {
  if (!values?.length) return NO_CODES;
  return [...new Set(values.map((v) => codes.of(v)))].sort((a, b) => a - b);
}
