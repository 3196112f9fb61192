// The words of the listing index's items (CONTRACT §23, docs/search.md): a radix tree of words
// (MiniSearch's SearchableMap: exact, prefix and edit-distance lookups), each word with a number
// whose list (int-lists.ts, one typed array for all words) holds the slots of the items it occurs
// in and where (title, body), one integer per occurrence: no object per word or per item.
//
// A query term's matches (every item one of the words it reaches occurs in, with its best match)
// are worked out once and remembered until a word comes or goes: popular words are asked again
// and again, and a common word can occur in most items. Each term's matches are also kept as a set
// of bits (slot-bits.ts): a search of several terms is their intersection (listing-index.ts).
import SearchableMap from 'minisearch/SearchableMap';
import { indexTermsOf, prefixAllowed, typoAllowed, withinOneEdit } from './search-text.js';
import { addSlot, wordsFor } from './slot-bits.js';
import { IntLists } from './int-lists.js';

const IN_TITLE = 1;
const IN_BODY = 2;
/** A posting is `slot << FIELD_BITS | fields` (slots stay far below 2^29). */
const FIELD_BITS = 2;

// How much a query term's match weighs in relevance, in tenths: a whole word 10, the beginning of
// a word 5, a word one typo away 3; in a title four times as much. So a title word comes before a
// description word, and a whole word before part of one (CONTRACT §23). At most 40 per term.
const WHOLE = 10;
const PREFIX = 5;
const TYPO = 3;
const TITLE_BOOST = 4;

/** Terms whose matches are remembered: at most this many, and at most REMEMBERED_BYTES in all. */
const REMEMBERED_TERMS = 256;
/** Each costs a byte and a bit per slot plus 4 bytes per match (docs/search.md, "Memory"). */
const REMEMBERED_BYTES = 48 * 2 ** 20;

/** A term's matches: their slots, the same as a set of bits, and, by slot, its best match in tenths (0: none). */
interface Remembered {
  slots: Int32Array;
  bits: Uint32Array;
  tenths: Uint8Array;
  /** The slots by relevance (most first, ties by id), worked out when first asked. */
  byRelevance?: Int32Array;
}

/** One query term's matches, as a listing page reads them. Valid until the index changes. */
export interface TermMatches {
  readonly count: number;
  /** The matching slots as bits (slot-bits.ts). */
  readonly bits: Uint32Array;
  /** By slot, the term's best match in tenths (0: none). */
  readonly tenths: Uint8Array;
  /** The matches most relevant first (ties by id): `idOrder` the slots by id, `idRank` each slot's place in it. */
  ranked(idOrder: Int32Array, idRank: Int32Array): Int32Array;
}

const tenthsOf = (weight: number, fields: number): number => (fields & IN_TITLE ? weight * TITLE_BOOST : weight);

export class TextIndex {
  /** Word → its number. */
  private readonly words = new SearchableMap<number>();
  /** Number → its word (undefined: a free number), and the numbers given back. */
  private readonly wordAt: (string | undefined)[] = [];
  private readonly freeNumbers: number[] = [];
  /** Per word number: its postings. Unordered. */
  private readonly postings = new IntLists();
  /** Per slot: the numbers of its words (to take it out again), and a hash of its text (to see an unchanged one). */
  private readonly wordsOf = new IntLists();
  private textHash = new Float64Array(0);
  /** Term → its matches; the most recently used last. */
  private readonly remembered = new Map<string, Remembered>();
  private rememberedBytes = 0;
  private capacity = 0;
  /** Scratch of a term's lookup: the slots it finds; of an item's words: their numbers. */
  private matched = new Int32Array(0);
  private numbers = new Int32Array(64);

  grow(capacity: number): void {
    this.capacity = capacity;
    const hashes = new Float64Array(capacity);
    hashes.set(this.textHash);
    this.textHash = hashes;
    this.wordsOf.grow(capacity);
    this.matched = new Int32Array(capacity);
    this.forgetAll();
  }

  private forgetAll(): void {
    this.remembered.clear();
    this.rememberedBytes = 0;
  }

  private recall(key: string): Remembered | undefined {
    const known = this.remembered.get(key);
    if (known) {
      this.remembered.delete(key);
      this.remembered.set(key, known);
    }
    return known;
  }

  private remember(key: string, tenths: Uint8Array, count: number): Remembered {
    const slots = this.matched.slice(0, count);
    const bits = new Uint32Array(wordsFor(this.capacity));
    for (const slot of slots) addSlot(bits, slot);
    const bytes = tenths.byteLength + slots.byteLength + bits.byteLength;
    while (this.remembered.size > 0 && (this.remembered.size >= REMEMBERED_TERMS || this.rememberedBytes + bytes > REMEMBERED_BYTES)) {
      const [oldest, old] = this.remembered.entries().next().value!;
      this.remembered.delete(oldest);
      this.rememberedBytes -= old.tenths.byteLength + old.slots.byteLength + old.bits.byteLength;
    }
    const found = { slots, bits, tenths };
    this.remembered.set(key, found);
    this.rememberedBytes += bytes;
    return found;
  }

  add(slot: number, title: string, body: string): void {
    // An item saved with the same text (a reaction, a new price) changes nothing here.
    const hash = textHashOf(title, body);
    if (this.wordsOf.has(slot) && this.textHash[slot] === hash) return;
    this.remove(slot);
    const where = new Map<string, number>();
    for (const word of indexTermsOf(title)) where.set(word, (where.get(word) ?? 0) | IN_TITLE);
    for (const word of indexTermsOf(body)) where.set(word, (where.get(word) ?? 0) | IN_BODY);
    if (where.size > this.numbers.length) this.numbers = new Int32Array(where.size * 2);
    let count = 0;
    for (const [word, fields] of where) {
      const number = this.words.get(word) ?? this.newWord(word);
      this.postings.push(number, (slot << FIELD_BITS) | fields);
      this.numbers[count++] = number;
    }
    this.wordsOf.set(slot, this.numbers, count);
    this.textHash[slot] = hash;
    this.forgetAll();
  }

  private newWord(word: string): number {
    const number = this.freeNumbers.pop() ?? this.wordAt.length;
    this.wordAt[number] = word;
    this.words.set(word, number);
    this.postings.grow(this.wordAt.length);
    return number;
  }

  remove(slot: number): void {
    if (!this.wordsOf.has(slot)) return;
    const { postings } = this;
    const from = this.wordsOf.start[slot];
    const to = from + this.wordsOf.length[slot];
    for (let i = from; i < to; i++) {
      const number = this.wordsOf.values[i];
      const start = postings.start[number];
      const end = start + postings.length[number];
      for (let at = start; at < end; at++) {
        if (postings.values[at] >>> FIELD_BITS !== slot) continue;
        postings.removeAt(number, at);
        break;
      }
      if (postings.length[number] === 0) {
        this.words.delete(this.wordAt[number]!);
        this.wordAt[number] = undefined;
        postings.delete(number);
        this.freeNumbers.push(number);
      }
    }
    this.wordsOf.delete(slot);
    this.forgetAll();
  }

  /** A term's matches: the words it reaches (as typed, as a beginning, within one edit) and their items. */
  private matchesOf(term: string): Remembered {
    const known = this.recall(term);
    if (known) return known;
    const tenths = new Uint8Array(this.capacity);
    const found = this.matched;
    let count = 0;
    const { postings } = this;
    const take = (number: number, weight: number) => {
      const values = postings.values;
      const end = postings.start[number] + postings.length[number];
      for (let i = postings.start[number]; i < end; i++) {
        const slot = values[i] >>> FIELD_BITS;
        const score = tenthsOf(weight, values[i] & IN_TITLE);
        if (tenths[slot] === 0) found[count++] = slot;
        if (score > tenths[slot]) tenths[slot] = score;
      }
    };
    const exact = this.words.get(term);
    if (exact !== undefined) take(exact, WHOLE);
    if (prefixAllowed(term)) {
      for (const [word, number] of this.words.atPrefix(term)) if (word !== term) take(number, PREFIX);
    }
    if (typoAllowed(term)) {
      // Levenshtein 2 reaches a swap of two letters too; the one-edit rule is checked here.
      for (const [word, [number]] of this.words.fuzzyGet(term, 2)) {
        if (word !== term && !word.startsWith(term) && withinOneEdit(term, word)) take(number, TYPO);
      }
    }
    return this.remember(term, tenths, count);
  }

  /** Each term's matches, the fewest first. */
  termMatches(terms: string[]): TermMatches[] {
    return terms
      .map((t) => this.matchesOf(t))
      .sort((a, b) => a.slots.length - b.slots.length)
      .map((m) => ({
        count: m.slots.length,
        bits: m.bits,
        tenths: m.tenths,
        ranked: (idOrder, idRank) => (m.byRelevance ??= relevanceOrder(m, idOrder, idRank)),
      }));
  }
}

/**
 * A 53-bit hash of an item's text (two 32-bit FNV-1a hashes with different offsets, one cut to 21
 * bits): equal texts, equal hashes; a change of text going unseen is a chance of one in 2^53.
 */
function textHashOf(title: string, body: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
    }
  };
  mix(title);
  mix('\u0000');
  mix(body);
  return (a >>> 0) * 2 ** 21 + ((b >>> 0) & 0x1fffff);
}

/** A term's matches most relevant first, ties by id: `idOrder` the slots by id, `idRank` each slot's place in it. */
function relevanceOrder(matches: Remembered, idOrder: Int32Array, idRank: Int32Array): Int32Array {
  // One number per match, sorted natively: fewer tenths sort later; the low 32 bits are the id rank.
  const keys = Float64Array.from(matches.slots, (slot) => (255 - matches.tenths[slot]) * 2 ** 32 + idRank[slot]).sort();
  return Int32Array.from(keys, (key) => idOrder[key % 2 ** 32]);
}
