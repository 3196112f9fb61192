// The slots holding each value of each coded field (docs/search.md, "Facets"): every facet value
// (amenity, apartment type, project status, price bucket), and the language and units a query
// may ask for. A facet is counted from these without reading an item: the query's selection,
// narrowed by the other facets' filters (themselves unions or intersections of these sets), is
// intersected with each value's set and counted. Kept as items come, change and go (IndexStore).
import type { ItemSlots } from './index-slots.js';
import { addSlot, hasSlot, removeSlot, widened, wordsFor } from './slot-bits.js';

/** One value's slots: a list while few items have it, bits once as many do as the bits have words. */
interface ValueSlots {
  count: number;
  bits: Uint32Array | null;
  list: number[];
}

/** How many slots `a` and `b` both hold in the `n` words listed in `at`. */
function countBoth(a: Uint32Array, b: Uint32Array, at: Int32Array, n: number): number {
  let count = 0;
  for (let k = 0; k < n; k++) {
    const i = at[k];
    let x = a[i] & b[i];
    if (x === 0) continue;
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    x = (x + (x >>> 4)) & 0x0f0f0f0f;
    count += Math.imul(x, 0x01010101) >>> 24;
  }
  return count;
}

/**
 * The slots of each code of one field. A value many items have is a set of bits (a word per 32
 * slots); a rare one is a list of its slots, so that values entered freely (amenities are any
 * text) cost memory by their holders, not a set each: a value turns into bits once it has more
 * holders than the sets have words, and back into a list below a quarter of that.
 */
export class ValueSets {
  private readonly values: ValueSlots[] = [];
  private capacity = 0;
  /** Values kept as bits, and the slots of those kept as lists. */
  private dense = 0;
  private listed = 0;

  /** Codes that ever had a slot (each below this). */
  get size(): number {
    return this.values.length;
  }

  grow(capacity: number): void {
    this.capacity = capacity;
    for (const value of this.values) if (value?.bits) value.bits = widened(value.bits, capacity);
  }

  add(code: number, slot: number): void {
    while (this.values.length <= code) this.values.push({ count: 0, bits: null, list: [] });
    const value = this.values[code];
    value.count++;
    if (value.bits) addSlot(value.bits, slot);
    else {
      value.list.push(slot);
      this.listed++;
      if (value.count > wordsFor(this.capacity)) this.toBits(value);
    }
  }

  remove(code: number, slot: number): void {
    const value = this.values[code];
    value.count--;
    if (value.bits) {
      removeSlot(value.bits, slot);
      if (value.count < wordsFor(this.capacity) / 4) this.toList(value);
      return;
    }
    const at = value.list.indexOf(slot);
    value.list[at] = value.list[value.list.length - 1];
    value.list.pop();
    this.listed--;
  }

  /** What counting every value in a set of `words` words costs, in words or slots read. */
  countCost(words: number): number {
    return this.dense * words + this.listed;
  }

  /** Gives each value the form its holders call for now (after a load, whose sets grew as it went). */
  settle(): void {
    const words = wordsFor(this.capacity);
    for (const value of this.values) {
      if (value.bits && value.count < words / 4) this.toList(value);
      else if (!value.bits && value.count > words) this.toBits(value);
    }
  }

  /** Whether no slot has the value. */
  empty(code: number): boolean {
    return code < 0 || code >= this.values.length || this.values[code].count === 0;
  }

  /** Writes the value's slots into the first `words` words of `into`. */
  copyInto(code: number, into: Uint32Array, words: number): void {
    const value = this.values[code];
    if (value?.bits) {
      into.set(value.bits.subarray(0, words));
      return;
    }
    into.fill(0, 0, words);
    for (const slot of value?.list ?? []) addSlot(into, slot);
  }

  /** Adds the value's slots to the first `words` words of `into`. */
  addInto(code: number, into: Uint32Array, words: number): void {
    const value = this.values[code];
    if (!value) return;
    const bits = value.bits;
    if (bits) for (let i = 0; i < words; i++) into[i] |= bits[i];
    else for (const slot of value.list) addSlot(into, slot);
  }

  /** Takes the value's slots out of the first `words` words of `into`. */
  removeFrom(code: number, into: Uint32Array, words: number): void {
    const value = this.values[code];
    if (!value) return;
    const bits = value.bits;
    if (bits) for (let i = 0; i < words; i++) into[i] &= ~bits[i];
    else for (const slot of value.list) removeSlot(into, slot);
  }

  /** Keeps in the first `words` words of `into` only the value's slots. */
  keepInto(code: number, into: Uint32Array, words: number, scratch: Uint32Array): void {
    this.copyInto(code, scratch, words);
    for (let i = 0; i < words; i++) into[i] &= scratch[i];
  }

  /** How many of the value's slots are in `bits` (only its `n` words listed in `at` hold any). */
  countIn(code: number, bits: Uint32Array, at: Int32Array, n: number): number {
    const value = this.values[code];
    if (!value || value.count === 0) return 0;
    if (value.bits) return countBoth(value.bits, bits, at, n);
    let count = 0;
    for (const slot of value.list) if (hasSlot(bits, slot)) count++;
    return count;
  }

  private toBits(value: ValueSlots): void {
    const bits = new Uint32Array(wordsFor(this.capacity));
    for (const slot of value.list) addSlot(bits, slot);
    value.bits = bits;
    this.dense++;
    this.listed -= value.list.length;
    value.list = [];
  }

  private toList(value: ValueSlots): void {
    const bits = value.bits!;
    const list: number[] = [];
    for (let i = 0; i < bits.length; i++) {
      let x = bits[i];
      while (x !== 0) {
        const lowest = x & -x;
        list.push((i << 5) + 31 - Math.clz32(lowest));
        x ^= lowest;
      }
    }
    value.bits = null;
    value.list = list;
    this.dense--;
    this.listed += list.length;
  }
}

/** Languages in a slot's mask: at most 31 (index-slots.ts). */
const LANGUAGE_BITS = 31;

/** Scratch sets one count needs: the selection, four facet filters, a facet's own selection, one value. */
const SCRATCH_SETS = 7;

/**
 * The value sets of every coded field a facet count reads (the uploaders' too: a caller's own
 * items and blocked uploaders), and the scratch of one count.
 */
export class FacetBits {
  readonly amenities = new ValueSets();
  readonly apartmentTypes = new ValueSets();
  readonly projectStatuses = new ValueSets();
  readonly priceBuckets = new ValueSets();
  readonly languages = new ValueSets();
  readonly unitPrice = new ValueSets();
  readonly unitArea = new ValueSets();
  readonly uploaders = new ValueSets();
  /** Scratch of one count, a word per 32 slots each (reused: nothing grows with a request). */
  readonly scratch: Uint32Array[] = [];
  /** Scratch: the words of a set that hold any slot. */
  wordList = new Int32Array(0);

  private sets(): ValueSets[] {
    return [this.amenities, this.apartmentTypes, this.projectStatuses, this.priceBuckets, this.languages, this.unitPrice, this.unitArea, this.uploaders];
  }

  grow(capacity: number): void {
    for (const sets of this.sets()) sets.grow(capacity);
    for (let i = 0; i < SCRATCH_SETS; i++) this.scratch[i] = new Uint32Array(wordsFor(capacity));
    this.wordList = new Int32Array(wordsFor(capacity));
  }

  /** Takes in a slot's values as just written. */
  add(slots: ItemSlots, slot: number): void {
    this.each(slots, slot, (sets, code) => sets.add(code, slot));
  }

  /** Takes out a slot's values (before they are overwritten or released). */
  remove(slots: ItemSlots, slot: number): void {
    this.each(slots, slot, (sets, code) => sets.remove(code, slot));
  }

  settle(): void {
    for (const sets of this.sets()) sets.settle();
  }

  private each(slots: ItemSlots, slot: number, visit: (sets: ValueSets, code: number) => void): void {
    for (const code of slots.amenityCodes[slot]) visit(this.amenities, code);
    for (const code of slots.apartmentTypeCodes[slot]) visit(this.apartmentTypes, code);
    for (const code of slots.projectStatusCodes[slot]) visit(this.projectStatuses, code);
    visit(this.priceBuckets, slots.priceBucket[slot]);
    visit(this.unitPrice, slots.unitPrice[slot]);
    visit(this.unitArea, slots.unitArea[slot]);
    visit(this.uploaders, slots.uploader[slot]);
    const mask = slots.langMask[slot];
    for (let code = 0; code < LANGUAGE_BITS; code++) if (mask & (1 << code)) visit(this.languages, code);
  }
}
