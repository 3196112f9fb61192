// The listing index's item ids (docs/search.md, "Memory"): every id is a uuid (contents.id), kept
// as its 16 bytes (four 32-bit words) per slot in a typed array, and found by an open-addressing
// hash table of slots, also a typed array: no string or map entry per item on the heap. An id's
// text is made again only for the few items an answer names.

/** Each byte's two hex digits. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** A slot with no id; the table's empty bucket is 0 (it holds slot + 1). */
const EMPTY = 0;

export class IdTable {
  /** Per slot: its id's four words, most significant first (so their order is the ids' text order). */
  private words = new Uint32Array(0);
  /** Buckets of slot + 1 (EMPTY: none), a power of two in number, at most half full. */
  private table = new Int32Array(16);
  private count = 0;
  /** Scratch: the words of the id looked up. */
  private readonly parsed = new Uint32Array(4);

  grow(capacity: number): void {
    const words = new Uint32Array(capacity * 4);
    words.set(this.words);
    this.words = words;
  }

  /** Ids held. */
  size(): number {
    return this.count;
  }

  /** The slot holding `id`, or undefined (also for a text that is no uuid in lower case). */
  find(id: string): number | undefined {
    if (!parseUuid(id, this.parsed)) return undefined;
    const at = this.bucketOf(this.parsed);
    return at < 0 ? undefined : this.table[at] - 1;
  }

  /** Gives `slot` the id (which no slot holds). */
  add(id: string, slot: number): void {
    if (!parseUuid(id, this.parsed)) throw new Error(`not a uuid: ${id}`);
    this.words.set(this.parsed, slot * 4);
    if ((this.count + 1) * 2 > this.table.length) this.rehash(this.table.length * 2);
    const mask = this.table.length - 1;
    let at = hashOf(this.parsed) & mask;
    while (this.table[at] !== EMPTY) at = (at + 1) & mask;
    this.table[at] = slot + 1;
    this.count++;
  }

  /** Takes the slot's id out. */
  remove(slot: number): void {
    const mask = this.table.length - 1;
    let at = this.bucketOf(this.words.subarray(slot * 4, slot * 4 + 4));
    if (at < 0) return;
    this.count--;
    // Later entries of the same run move back into the hole when their home bucket allows it.
    for (let next = (at + 1) & mask; this.table[next] !== EMPTY; next = (next + 1) & mask) {
      const other = this.table[next] - 1;
      const home = hashOf(this.words.subarray(other * 4, other * 4 + 4)) & mask;
      if (((next - home) & mask) >= ((next - at) & mask)) {
        this.table[at] = this.table[next];
        at = next;
      }
    }
    this.table[at] = EMPTY;
  }

  /** The id of a held slot, as text. */
  idOf(slot: number): string {
    const w = this.words;
    const at = slot * 4;
    const [a, b, c, d] = [w[at], w[at + 1], w[at + 2], w[at + 3]];
    const x = (word: number, shift: number) => HEX[(word >>> shift) & 0xff];
    return (
      x(a, 24) +
      x(a, 16) +
      x(a, 8) +
      x(a, 0) +
      '-' +
      x(b, 24) +
      x(b, 16) +
      '-' +
      x(b, 8) +
      x(b, 0) +
      '-' +
      x(c, 24) +
      x(c, 16) +
      '-' +
      x(c, 8) +
      x(c, 0) +
      x(d, 24) +
      x(d, 16) +
      x(d, 8) +
      x(d, 0)
    );
  }

  /** The order of two held slots' ids (PostgreSQL's uuid order, the order of their text). */
  compare(a: number, b: number): number {
    const w = this.words;
    for (let i = 0; i < 4; i++) {
      const x = w[a * 4 + i];
      const y = w[b * 4 + i];
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  }

  /** The bucket holding the id of these words, or -1. */
  private bucketOf(id: Uint32Array): number {
    const mask = this.table.length - 1;
    const w = this.words;
    for (let at = hashOf(id) & mask; this.table[at] !== EMPTY; at = (at + 1) & mask) {
      const s = (this.table[at] - 1) * 4;
      if (w[s] === id[0] && w[s + 1] === id[1] && w[s + 2] === id[2] && w[s + 3] === id[3]) return at;
    }
    return -1;
  }

  private rehash(buckets: number): void {
    const old = this.table;
    this.table = new Int32Array(buckets);
    const mask = buckets - 1;
    for (const entry of old) {
      if (entry === EMPTY) continue;
      const slot = entry - 1;
      let at = hashOf(this.words.subarray(slot * 4, slot * 4 + 4)) & mask;
      while (this.table[at] !== EMPTY) at = (at + 1) & mask;
      this.table[at] = entry;
    }
  }
}

function hashOf(id: Uint32Array): number {
  let h = Math.imul(id[0] ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ id[1] ^ (h >>> 15), 0xc2b2ae35);
  h = Math.imul(h ^ id[2] ^ (h >>> 13), 0x85ebca6b);
  h = Math.imul(h ^ id[3] ^ (h >>> 16), 0xc2b2ae35);
  return (h ^ (h >>> 15)) >>> 0;
}

/** Reads a uuid in lower case (8-4-4-4-12 hex digits) into four words; false for any other text. */
function parseUuid(id: string, into: Uint32Array): boolean {
  if (id.length !== 36) return false;
  let word = 0;
  let digits = 0;
  for (let i = 0; i < 36; i++) {
    const c = id.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false;
      continue;
    }
    const v = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (v < 0) return false;
    word = (word << 4) | v;
    if (++digits % 8 === 0) {
      into[digits / 8 - 1] = word >>> 0;
      word = 0;
    }
  }
  return true;
}
