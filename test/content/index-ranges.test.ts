// The listing index's range sets (src/content/search-index/index-ranges.ts) against the plain answer: for
// random ranges, after a load, as values change, as slots come and go, through an empty start and
// drift past the last threshold (the cuts made again), the selected slots are exactly those whose
// value lies in the range. The data structure alone: the server-level tests (search.test.ts,
// search-totals.test.ts) check the same through `/all`.
import { describe, expect, it } from 'vitest';
import { SlotOrder } from '../../src/content/search-index/index-orders.js';
import { RangeBits } from '../../src/content/search-index/index-ranges.js';
import { forEachSlot, wordsFor } from '../../src/content/search-index/slot-bits.js';

const CAPACITY = 4_096;

/** A deterministic generator, so a failure repeats. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

class Column {
  readonly values = new Float64Array(CAPACITY).fill(NaN);
  readonly ids: (string | undefined)[] = [];
  readonly order = new SlotOrder(
    (slot) => this.values[slot],
    (a, b) => compareText(this.ids[a]!, this.ids[b]!),
  );
  readonly ranges = new RangeBits(this.order);
  readonly held = new Set<number>();

  constructor() {
    this.order.grow(CAPACITY);
    this.ranges.grow(CAPACITY);
  }

  /** Puts or changes a slot's value the way the index does: order first, then the range sets (cut again when stale). */
  put(slot: number, value: number): void {
    if (this.held.has(slot)) this.order.remove(slot);
    this.values[slot] = value;
    this.ids[slot] = `id-${String(slot).padStart(5, '0')}`;
    this.held.add(slot);
    this.order.insert(slot);
    this.ranges.set(slot, value);
    if (this.ranges.stale()) this.ranges.rebuild();
  }

  drop(slot: number): void {
    this.order.remove(slot);
    this.held.delete(slot);
    this.ranges.set(slot, NaN);
    if (this.ranges.stale()) this.ranges.rebuild();
  }

  selected(low: number, high: number): number[] {
    const words = wordsFor(CAPACITY);
    const bits = new Uint32Array(words).fill(0xffffffff); // anything left over must be overwritten
    this.ranges.select(bits, words, low, high);
    const found: number[] = [];
    forEachSlot(bits, words, (slot) => found.push(slot));
    return found;
  }

  expected(low: number, high: number): number[] {
    return [...this.held].filter((slot) => this.values[slot] >= low && this.values[slot] <= high).sort((a, b) => a - b);
  }
}

function checkRanges(column: Column, next: () => number, spread: number): void {
  for (let i = 0; i < 60; i++) {
    const a = Math.round(next() * spread);
    const b = Math.round(next() * spread);
    const [low, high] = i % 10 === 0 ? [-Infinity, a] : i % 10 === 1 ? [a, Infinity] : [Math.min(a, b), Math.max(a, b)];
    expect(column.selected(low, high), `[${low}, ${high}]`).toEqual(column.expected(low, high));
  }
  expect(column.selected(5, 4)).toEqual([]);
}

describe('range sets of the listing index', () => {
  it('should select exactly the values in a range after a load, and as values change and slots go', () => {
    const next = random(7);
    const column = new Column();
    // Ties on purpose: values rounded to 100 steps.
    for (let slot = 0; slot < 3_000; slot++) {
      column.values[slot] = Math.round(next() * 100) * 10;
      column.ids[slot] = `id-${String(slot).padStart(5, '0')}`;
      column.held.add(slot);
    }
    column.order.rebuild(column.held);
    column.ranges.rebuild();
    checkRanges(column, next, 1_000);
    for (let step = 0; step < 1_200; step++) {
      const slot = Math.floor(next() * 3_500);
      if (column.held.has(slot) && next() < 0.3) column.drop(slot);
      else column.put(slot, Math.round(next() * 100) * 10);
    }
    checkRanges(column, next, 1_000);
  });

  it('should stay exact from an empty start and as new values drift past the last threshold', () => {
    const next = random(11);
    const column = new Column();
    column.order.rebuild([]);
    column.ranges.rebuild();
    // Creation times: every new item newer than all before it.
    for (let slot = 0; slot < 2_500; slot++) {
      column.put(slot, 1_000 + slot * 3);
      if (slot % 500 === 499) checkRanges(column, next, 1_000 + slot * 3);
    }
    // The oldest go as new ones come: the values drift.
    for (let slot = 0; slot < 1_500; slot++) {
      column.drop(slot);
      column.put(2_500 + slot, 1_000 + (2_500 + slot) * 3);
    }
    checkRanges(column, next, 13_000);
  });
});
