// Lists of small integers kept in one typed array (docs/search.md, "Memory"): the listing index's
// word postings (a list per word) and each item's words (a list per slot), without an object per
// list for the garbage collector to walk. A list has room reserved after it; one that outgrows
// its room moves to the end with twice the room and leaves a hole. The holes are squeezed out
// when they take more than the lists do.

/** Marks a key without a list. */
const NONE = -1;

export class IntLists {
  /** The lists' values; a list is `values[start[key] .. start[key] + length[key])`. */
  values = new Int32Array(1024);
  start = new Int32Array(0);
  length = new Int32Array(0);
  private room = new Int32Array(0);
  /** Values used (the lists and the holes between them), and how many of them are holes. */
  private end = 0;
  private holes = 0;

  /** Makes room for keys below `keys` (at least twice as many as before, when it grows). */
  grow(keys: number): void {
    if (keys <= this.start.length) return;
    const size = Math.max(keys, this.start.length * 2);
    const widen = (old: Int32Array, fill: number) => {
      const next = new Int32Array(size).fill(fill);
      next.set(old);
      return next;
    };
    this.start = widen(this.start, NONE);
    this.length = widen(this.length, 0);
    this.room = widen(this.room, 0);
  }

  has(key: number): boolean {
    return this.start[key] !== NONE;
  }

  /** Makes `values[0..count)` the key's list (an empty one counts as a list). */
  set(key: number, values: Int32Array, count: number): void {
    if (this.room[key] < count || this.start[key] === NONE) this.place(key, count);
    this.values.set(values.subarray(0, count), this.start[key]);
    this.length[key] = count;
  }

  /** Adds a value at the end of the key's list (one is made when it has none). */
  push(key: number, value: number): void {
    const length = this.start[key] === NONE ? 0 : this.length[key];
    if (this.start[key] === NONE || length === this.room[key]) this.place(key, Math.max(2, length * 2));
    this.values[this.start[key] + length] = value;
    this.length[key] = length + 1;
  }

  /** Takes the value at `at` (an index into `values`, within the key's list) out; the last value takes its place. */
  removeAt(key: number, at: number): void {
    const last = this.start[key] + --this.length[key];
    this.values[at] = this.values[last];
  }

  /** Forgets the key's list. */
  delete(key: number): void {
    if (this.start[key] === NONE) return;
    this.holes += this.room[key];
    this.start[key] = NONE;
    this.length[key] = 0;
    this.room[key] = 0;
  }

  /** Gives the key a place with room for `room` values at the end, keeping its values. */
  private place(key: number, room: number): void {
    if (this.end + room > this.values.length) this.makeRoom(room);
    const start = this.start[key];
    const at = this.end;
    if (start !== NONE) {
      this.values.copyWithin(at, start, start + this.length[key]);
      this.holes += this.room[key];
    } else this.length[key] = 0;
    this.start[key] = at;
    this.room[key] = room;
    this.end += room;
  }

  /** Squeezes out the holes when they take more than the lists, and grows the array if that is not enough. */
  private makeRoom(room: number): void {
    const needed = this.end - this.holes + room;
    const size = Math.max(this.values.length, 1024);
    const next = new Int32Array(this.holes * 2 > this.end && needed <= size ? size : Math.max(size * 2, needed * 2));
    let end = 0;
    for (let key = 0; key < this.start.length; key++) {
      const start = this.start[key];
      if (start === NONE) continue;
      next.set(this.values.subarray(start, start + this.length[key]), end);
      this.start[key] = end;
      end += this.room[key];
    }
    this.values = next;
    this.end = end;
    this.holes = 0;
  }
}
