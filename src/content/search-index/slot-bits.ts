// Sets of the listing index's slots as bits, one per slot, 32 to a word (docs/search.md, "How a
// query runs"): a query's conditions each give such a set, and their intersection, a few thousand
// word operations, tells which items match and how many, before any item is read.

/** Words needed for `slots` slots. */
export const wordsFor = (slots: number): number => (slots + 31) >>> 5;

export function addSlot(bits: Uint32Array, slot: number): void {
  bits[slot >>> 5] |= 1 << (slot & 31);
}

export function removeSlot(bits: Uint32Array, slot: number): void {
  bits[slot >>> 5] &= ~(1 << (slot & 31));
}

export function hasSlot(bits: Uint32Array, slot: number): boolean {
  return (bits[slot >>> 5] & (1 << (slot & 31))) !== 0;
}

/** A copy of `bits` with room for `slots` slots. */
export function widened(bits: Uint32Array, slots: number): Uint32Array<ArrayBuffer> {
  const next = new Uint32Array(wordsFor(slots));
  next.set(bits.subarray(0, Math.min(bits.length, next.length)));
  return next;
}

/** Keeps in `target` only the slots also in `other` (the first `words` words). */
export function intersect(target: Uint32Array, other: Uint32Array, words: number): void {
  for (let i = 0; i < words; i++) target[i] &= other[i];
}

/** How many slots the first `words` words hold. */
export function countSlots(bits: Uint32Array, words: number): number {
  let count = 0;
  for (let i = 0; i < words; i++) {
    let x = bits[i];
    if (x === 0) continue;
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    x = (x + (x >>> 4)) & 0x0f0f0f0f;
    count += Math.imul(x, 0x01010101) >>> 24;
  }
  return count;
}

/** Calls `visit` with each slot in the first `words` words, lowest first. */
export function forEachSlot(bits: Uint32Array, words: number, visit: (slot: number) => void): void {
  for (let i = 0; i < words; i++) {
    let x = bits[i];
    while (x !== 0) {
      const lowest = x & -x;
      visit((i << 5) + 31 - Math.clz32(lowest));
      x ^= lowest;
    }
  }
}
