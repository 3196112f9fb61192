// The listing index's orders (docs/search.md): the slots of its items sorted by one column, kept
// sorted as items come and go, and each slot's position in that order (its rank), worked out
// again only when a query needs it after a change. A page in a column's order either walks the
// order or sorts its few matches by rank.

export class SlotOrder {
  /** Slots in ascending (value, id) order: the first `length` entries. */
  order = new Int32Array(0);
  length = 0;
  private rank = new Int32Array(0);
  private ranked = false;

  /**
   * `value` reads a slot's value (from the item slots' typed arrays, which may be replaced as
   * they grow: so a function, not an array); `compareIds` orders two slots by their ids, for ties
   * (PostgreSQL's uuid order, the order of their lower-case text).
   */
  constructor(
    private readonly value: (slot: number) => number,
    private readonly compareIds: (a: number, b: number) => number,
  ) {}

  grow(capacity: number): void {
    const order = new Int32Array(capacity);
    order.set(this.order.subarray(0, this.length));
    this.order = order;
    this.rank = new Int32Array(capacity);
    this.ranked = false;
  }

  private compare(a: number, b: number): number {
    return this.value(a) - this.value(b) || this.compareIds(a, b);
  }

  /** A slot's value in this order. */
  valueAt(slot: number): number {
    return this.value(slot);
  }

  /** Where `slot` belongs with the value `value` (by default its current one). */
  private position(slot: number, value = this.value(slot)): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const other = this.order[mid];
      if ((this.value(other) - value || this.compareIds(other, slot)) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(slot: number): void {
    const at = this.position(slot);
    this.order.copyWithin(at + 1, at, this.length);
    this.order[at] = slot;
    this.length++;
    this.ranked = false;
  }

  /** Removes `slot`, found by its value when it was inserted (`value`, by default its current one). */
  remove(slot: number, value?: number): void {
    let at = this.position(slot, value);
    if (this.order[at] !== slot) at = this.order.subarray(0, this.length).indexOf(slot);
    if (at < 0) return;
    this.order.copyWithin(at, at + 1, this.length);
    this.length--;
    this.ranked = false;
  }

  /** The run [from, to) of the order whose values lie within [low, high]. */
  between(low: number, high: number): { from: number; to: number } {
    const first = (above: (v: number) => boolean) => {
      let lo = 0;
      let hi = this.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (above(this.value(this.order[mid]))) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    };
    return { from: first((v) => v >= low), to: first((v) => v > high) };
  }

  /** Sorts the given slots anew (after a load). */
  rebuild(slots: Iterable<number>): void {
    const all = Int32Array.from(slots);
    const sorted = [...all].sort((a, b) => this.compare(a, b));
    this.order.set(sorted);
    this.length = sorted.length;
    this.ranked = false;
  }

  /** Each slot's position in the order (valid for the slots in it). */
  ranks(): Int32Array {
    if (!this.ranked) {
      for (let i = 0; i < this.length; i++) this.rank[this.order[i]] = i;
      this.ranked = true;
    }
    return this.rank;
  }
}
