// Text per slot kept outside the JS heap (docs/search.md, "Memory"): the listing index's rows, as
// row-codec.ts writes them, in large buffers ("chunks") that the garbage collector never walks;
// per slot only its chunk, offset and length, in typed arrays. A row written again goes to the
// end of the last chunk and its old bytes become a hole. A chunk whose rows fill less than half
// of it is emptied into the last chunk and dropped, so holes never take more than the rows do
// (a change of an item, a reaction, writes its row again: holes come with every change).

/** Bytes per chunk: big enough that there are few (125 per GB), small enough to empty one quickly. */
const CHUNK_BYTES = 8 * 2 ** 20;

export class RowArena {
  private readonly chunks: (Buffer | null)[] = [];
  /** Bytes of live rows per chunk. */
  private readonly live: number[] = [];
  /** Dropped chunks' numbers, given out again. */
  private readonly spare: number[] = [];
  /** The chunk written to, and how much of it is used. */
  private tail = -1;
  private filled = 0;
  /** Per slot: its chunk (-1: none), offset and length in bytes. */
  private chunkOf = new Int32Array(0);
  private offsetOf = new Int32Array(0);
  private lengthOf = new Int32Array(0);

  grow(capacity: number): void {
    const chunkOf = new Int32Array(capacity).fill(-1);
    chunkOf.set(this.chunkOf);
    this.chunkOf = chunkOf;
    const offsetOf = new Int32Array(capacity);
    offsetOf.set(this.offsetOf);
    this.offsetOf = offsetOf;
    const lengthOf = new Int32Array(capacity);
    lengthOf.set(this.lengthOf);
    this.lengthOf = lengthOf;
  }

  /** Keeps `text` as the slot's (in place of what it had). */
  write(slot: number, text: string): void {
    this.free(slot);
    // UTF-8 takes at most three bytes per UTF-16 unit: room for that, then only what it took is used.
    const chunk = this.room(text.length * 3);
    this.place(slot, this.tail, this.filled, chunk.write(text, this.filled, 'utf8'));
  }

  /** The slot's text ('' when it has none). */
  read(slot: number): string {
    const chunk = this.chunkOf[slot];
    if (chunk < 0) return '';
    const at = this.offsetOf[slot];
    return this.chunks[chunk]!.toString('utf8', at, at + this.lengthOf[slot]);
  }

  /** Forgets the slot's text. */
  free(slot: number): void {
    const chunk = this.chunkOf[slot];
    if (chunk < 0) return;
    this.chunkOf[slot] = -1;
    this.live[chunk] -= this.lengthOf[slot];
    if (chunk !== this.tail && this.live[chunk] * 2 < this.chunks[chunk]!.length) this.empty(chunk);
  }

  /** Bytes held in chunks (live rows, holes and the unused end of the last chunk). */
  bytes(): number {
    return this.chunks.reduce((sum, chunk) => sum + (chunk?.length ?? 0), 0);
  }

  private place(slot: number, chunk: number, at: number, length: number): void {
    this.chunkOf[slot] = chunk;
    this.offsetOf[slot] = at;
    this.lengthOf[slot] = length;
    this.live[chunk] += length;
    this.filled = at + length;
  }

  /** The last chunk, with at least `bytes` free at `filled` (a new chunk when it has not). */
  private room(bytes: number): Buffer {
    const last = this.tail < 0 ? null : this.chunks[this.tail]!;
    if (last && this.filled + bytes <= last.length) return last;
    // The old last chunk may be mostly holes already: it is emptied like any other.
    const old = this.tail;
    const chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, bytes));
    this.tail = this.spare.pop() ?? this.chunks.length;
    this.chunks[this.tail] = chunk;
    this.live[this.tail] = 0;
    this.filled = 0;
    if (old >= 0 && this.live[old] * 2 < this.chunks[old]!.length) this.empty(old);
    return chunk;
  }

  /** Moves a chunk's rows to the last chunk and drops it. */
  private empty(chunk: number): void {
    const from = this.chunks[chunk]!;
    for (let slot = 0; slot < this.chunkOf.length; slot++) {
      if (this.chunkOf[slot] !== chunk) continue;
      const at = this.offsetOf[slot];
      const length = this.lengthOf[slot];
      const to = this.room(length);
      from.copy(to, this.filled, at, at + length);
      this.place(slot, this.tail, this.filled, length);
    }
    this.chunks[chunk] = null;
    this.live[chunk] = 0;
    this.spare.push(chunk);
  }
}
