// A range of one column (price, area, creation time) as a set of slots (slot-bits.ts), without
// reading every item in it (docs/search.md, "How a query runs"). The column's order is cut at
// BLOCKS thresholds, and for each threshold the set of the slots whose value lies below it is
// kept. A range [low, high] is then the difference of two such sets, plus the items between
// `low` and the first threshold above it and between the last threshold below `high` and `high`,
// read from the order (about one block each). The cuts are made again once as many values have
// changed since the last cut as half the items (growth from an empty start, creation times that
// all move past the last threshold), so a range keeps reading about two blocks.
import type { SlotOrder } from './index-orders.js';
import { addSlot, removeSlot, widened, wordsFor } from './slot-bits.js';

/** Thresholds per column: each costs a bit per slot (BLOCKS / 8 bytes per item), and a range reads about two blocks of items. */
const BLOCKS = 64;

export class RangeBits {
  private thresholds = new Float64Array(0);
  /** below[k]: the slots whose value is below thresholds[k]. */
  private below: Uint32Array[] = [];
  private slots = 0;
  /** Values set since the thresholds were cut. */
  private changes = 0;

  constructor(private readonly order: SlotOrder) {}

  grow(capacity: number): void {
    this.slots = capacity;
    this.below = this.below.map((bits) => widened(bits, capacity));
  }

  /** Cuts the order anew at even intervals (after a load): later values move bits, not thresholds. */
  rebuild(): void {
    const { order } = this;
    this.changes = 0;
    const cuts: number[] = [];
    for (let k = 1; k <= BLOCKS && order.length > 0; k++) {
      const value = order.valueAt(order.order[Math.floor((k * order.length) / (BLOCKS + 1))]);
      if (cuts.length === 0 || value > cuts[cuts.length - 1]) cuts.push(value);
    }
    this.thresholds = Float64Array.from(cuts);
    this.below = cuts.map(() => new Uint32Array(wordsFor(this.slots)));
    // The slots below a threshold are a first part of the order; each set adds to the one before.
    let at = 0;
    cuts.forEach((threshold, k) => {
      const bits = this.below[k];
      if (k > 0) bits.set(this.below[k - 1]);
      const end = order.between(threshold, Infinity).from;
      for (; at < end; at++) addSlot(bits, order.order[at]);
    });
  }

  /** A slot's value is now `value` (NaN: the slot is gone). */
  set(slot: number, value: number): void {
    this.changes++;
    const { thresholds, below } = this;
    for (let k = 0; k < thresholds.length; k++) {
      if (value < thresholds[k]) addSlot(below[k], slot);
      else removeSlot(below[k], slot);
    }
  }

  /** Whether so many values changed since the cut that the blocks may be uneven (then rebuild). */
  stale(): boolean {
    return this.changes > this.order.length / 2 + BLOCKS;
  }

  /** Writes into the first `words` words of `into` the slots whose value lies within [low, high]. */
  select(into: Uint32Array, words: number, low: number, high: number): void {
    const { thresholds, below, order } = this;
    // a: the first threshold at or above low; b: the last at or below high.
    let a = 0;
    while (a < thresholds.length && thresholds[a] < low) a++;
    let b = thresholds.length - 1;
    while (b >= 0 && thresholds[b] > high) b--;
    const addRun = (from: number, to: number) => {
      const run = order.between(from, to);
      for (let i = run.from; i < run.to; i++) addSlot(into, order.order[i]);
    };
    if (a < b) {
      // [thresholds[a], thresholds[b]) from the sets; the ends from the order.
      const lower = below[a];
      const upper = below[b];
      for (let i = 0; i < words; i++) into[i] = upper[i] & ~lower[i];
      addRun(low, thresholds[a]);
      addRun(thresholds[b], high);
    } else {
      into.fill(0, 0, words);
      addRun(low, high);
    }
  }
}
