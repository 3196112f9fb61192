// The listing index's orders (docs/search.md): the slots of its items sorted by one column, kept
// sorted as items come and go, and each slot's position in that order (its rank), worked out
// again only when a query needs it after a change. A page in a column's order either walks the
// order or sorts its few matches by rank.

/** PostgreSQL's uuid order is the order of their lower-case text. */
const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export class SlotOrder {
  /** Slots in ascending (value, id) order: the first `length` entries. */
  order = new Int32Array(0);
  length = 0;
  private rank = new Int32Array(0);
  private ranked = false;

  /**
   * `value` reads a slot's value (from the item slots' typed arrays, which may be replaced as
   * they grow: so a function, not an array); `ids` the slots' ids for ties.
   */
  constructor(
    private readonly value: (slot: number) => number,
    private readonly ids: () => readonly (string | undefined)[],
  ) {}

  grow(capacity: number): void {
    const order = new Int32Array(capacity);
    order.set(this.order.subarray(0, this.length));
    this.order = order;
    this.rank = new Int32Array(capacity);
    this.ranked = false;
  }

  private compare(a: number, b: number, ids: readonly (string | undefined)[]): number {
    return this.value(a) - this.value(b) || compareIds(ids[a]!, ids[b]!);
  }

  /** A slot's value in this order. */
  valueAt(slot: number): number {
    return this.value(slot);
  }

  /** Where `slot` belongs with the value `value` (by default its current one). */
  private position(slot: number, value = this.value(slot)): number {
    const ids = this.ids();
    const id = ids[slot]!;
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const other = this.order[mid];
      if ((this.value(other) - value || compareIds(ids[other]!, id)) < 0) lo = mid + 1;
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
    const ids = this.ids();
    const all = Int32Array.from(slots);
    const sorted = [...all].sort((a, b) => this.compare(a, b, ids));
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
