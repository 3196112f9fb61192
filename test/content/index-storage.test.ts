// The listing index's compact storage (docs/search.md, "Memory") against plain models: rows as
// text and back (row-codec.ts), text per slot in chunks outside the heap (row-arena.ts), lists of
// integers in one typed array (int-lists.ts), ids as words with a hash table (id-table.ts),
// through random writes, rewrites and frees that leave holes to be squeezed out. The data structures alone: the server-level tests
// (search.test.ts, listings.test.ts) check the index's answers through `/all`.
import { describe, expect, it } from 'vitest';
import type { ContentRow } from '../../src/content/content-repository.js';
import { decodeRow, encodeRow } from '../../src/content/search-index/row-codec.js';
import { RowArena } from '../../src/content/search-index/row-arena.js';
import { IntLists } from '../../src/content/search-index/int-lists.js';
import { IdTable } from '../../src/content/search-index/id-table.js';

/** A deterministic generator, so a failure repeats. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

// Every field a value of its own, so two fields swapped in the codec's order cannot go unseen.
const ROW: ContentRow = {
  id: '0000280f-52b5-4371-b723-5305797fc25b',
  uploader_id: '1b55982d-3730-4792-a2fb-67ce301e22f5',
  status: 'completed',
  price: 15_483_000_000,
  unit_price: 'VND',
  area: 34.4,
  unit_area: 'm2',
  price_per_area: 450_087_209.3023256,
  latitude: 10.797641930320399,
  longitude: 106.43724426432975,
  hash_tags: ['#bds', '#căn-hộ'],
  profit_rate: { roi: 1.5, roa: 2.5 },
  amenities: ['parking', 'garden'],
  real_estate_info: { apartment_type: 'apartment', project_status: 'completed', legal_certificates: 'pink_book' },
  is_multi_language: true,
  content_info: [
    {
      lang: 'vi',
      address: 'TP. Hồ Chí Minh',
      description: 'Mô tả căn hộ số 31952 "quoted" \\ 서울',
      project_name: 'Nhà phố Thảo Điền 31952',
      apartment_type: 'apartment',
      project_status: 'completed',
      extra_description: null,
      legal_certificates: 'pink_book',
    },
  ],
  video: {
    original_name: 'v.mp4',
    size: 1_000_000,
    resolution: '1080x1920',
    duration: 30,
    status: 'completed',
    original_path: 'videos/x/original.mp4',
    playlist_path: 'videos/x/hls/index.m3u8',
    thumbnail_path: 'videos/x/thumb.jpg',
    error: null,
    error_code: null,
  },
  images: [{ id: 'i1', path: 'images/a.jpg', name: 'a.jpg' }],
  reaction_count: 7,
  comment_count: 8,
  view_count: 9,
  created_at: new Date('2026-07-24T21:14:08.014Z'),
  updated_at: new Date('2026-12-07T17:31:31.237Z'),
  uploader_given_name: 'Uploader',
  uploader_family_name: '153',
  uploader_picture: 'pictures/p.jpg',
  uploader_phone: '+84910000153',
  moderation_note: 'a note',
};

describe('row codec', () => {
  it('gives back the row it encoded, dates as dates', () => {
    const back = decodeRow(encodeRow(ROW));
    expect(back).toEqual(ROW);
    expect(back.created_at).toBeInstanceOf(Date);
    expect(back.updated_at).toBeInstanceOf(Date);
  });

  it('keeps nulls', () => {
    const row: ContentRow = { ...ROW, latitude: null, longitude: null, profit_rate: null, uploader_picture: null, moderation_note: null };
    expect(decodeRow(encodeRow(row))).toEqual(row);
  });
});

describe('row arena', () => {
  it('reads each slot as last written, through rewrites and frees, and drops chunks that empty', () => {
    const next = random(7);
    const slots = 4_000;
    const arena = new RowArena();
    arena.grow(slots);
    const model = new Map<number, string>();
    const textOf = (slot: number) => `${slot}:${'Căn hộ 서울 x'.repeat(1 + Math.floor(next() * 300))}`;
    for (let step = 0; step < 20_000; step++) {
      const slot = Math.floor(next() * slots);
      if (next() < 0.2) {
        arena.free(slot);
        model.delete(slot);
      } else {
        const text = textOf(slot);
        arena.write(slot, text);
        model.set(slot, text);
      }
    }
    for (let slot = 0; slot < slots; slot++) expect(arena.read(slot)).toBe(model.get(slot) ?? '');
    const live = [...model.values()].reduce((sum, text) => sum + Buffer.byteLength(text), 0);
    // Holes never take more than the rows (a chunk below half is emptied), plus the last chunk.
    expect(arena.bytes()).toBeLessThanOrEqual(2 * live + 8 * 2 ** 20);
    for (const slot of [...model.keys()]) if (slot % 10 !== 0) arena.free(slot);
    for (let slot = 0; slot < slots; slot++) expect(arena.read(slot)).toBe(slot % 10 === 0 ? (model.get(slot) ?? '') : '');
    expect(arena.bytes()).toBeLessThanOrEqual(2 * 8 * 2 ** 20);
  });

  it('keeps a text longer than a chunk', () => {
    const arena = new RowArena();
    arena.grow(2);
    const long = 'é'.repeat(5 * 2 ** 20);
    arena.write(0, 'short');
    arena.write(1, long);
    expect(arena.read(1)).toBe(long);
    expect(arena.read(0)).toBe('short');
  });
});

describe('int lists', () => {
  it('hold each key as pushed, set, taken from and deleted, through moves and squeezes', () => {
    const next = random(11);
    const keys = 300;
    const lists = new IntLists();
    lists.grow(keys);
    const model = new Map<number, number[]>();
    const scratch = new Int32Array(64);
    for (let step = 0; step < 60_000; step++) {
      const key = Math.floor(next() * keys);
      const r = next();
      const list = model.get(key);
      if (r < 0.6) {
        const value = Math.floor(next() * 1e6);
        lists.push(key, value);
        model.set(key, [...(list ?? []), value]);
      } else if (r < 0.75 && list?.length) {
        const i = Math.floor(next() * list.length);
        lists.removeAt(key, lists.start[key] + i);
        list[i] = list[list.length - 1];
        list.pop();
      } else if (r < 0.9) {
        const count = Math.floor(next() * 40);
        for (let i = 0; i < count; i++) scratch[i] = Math.floor(next() * 1e6);
        lists.set(key, scratch, count);
        model.set(key, [...scratch.subarray(0, count)]);
      } else {
        lists.delete(key);
        model.delete(key);
      }
    }
    for (let key = 0; key < keys; key++) {
      const list = model.get(key);
      expect(lists.has(key)).toBe(list !== undefined);
      const start = lists.start[key];
      expect([...lists.values.subarray(start, start + lists.length[key])]).toEqual(list ?? []);
    }
  });
});

describe('id table', () => {
  it('finds each id held, gives its text back and orders slots as their ids text', () => {
    const next = random(5);
    const slots = 3_000;
    const table = new IdTable();
    table.grow(slots);
    const hex = (digits: number) => Array.from({ length: digits }, () => '0123456789abcdef'[Math.floor(next() * 16)]).join('');
    // The generator repeats itself: a counter in the last digits keeps every id new.
    let made = 0;
    const uuid = () => `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(4)}${String(made++).padStart(8, '0')}`;
    const held = new Map<string, number>();
    const idOf = new Map<number, string>();
    const free = Array.from({ length: slots }, (_, i) => i);
    for (let step = 0; step < 20_000; step++) {
      if (free.length && next() < 0.6) {
        const slot = free.splice(Math.floor(next() * free.length), 1)[0];
        const id = uuid();
        table.add(id, slot);
        held.set(id, slot);
        idOf.set(slot, id);
      } else if (held.size) {
        const slot = [...idOf.keys()][Math.floor(next() * idOf.size)];
        table.remove(slot);
        held.delete(idOf.get(slot)!);
        idOf.delete(slot);
        free.push(slot);
      }
    }
    expect(table.size()).toBe(held.size);
    for (const [id, slot] of held) {
      expect(table.find(id)).toBe(slot);
      expect(table.idOf(slot)).toBe(id);
    }
    for (let i = 0; i < 200; i++) expect(table.find(uuid())).toBeUndefined();
    const [someId] = held.keys();
    expect(table.find(someId.toUpperCase())).toBe(/[a-f]/.test(someId) ? undefined : held.get(someId));
    expect(table.find('not-a-uuid')).toBeUndefined();
    const slotsHeld = [...idOf.keys()];
    for (let i = 0; i < 2_000; i++) {
      const a = slotsHeld[Math.floor(next() * slotsHeld.length)];
      const b = slotsHeld[Math.floor(next() * slotsHeld.length)];
      const [x, y] = [idOf.get(a)!, idOf.get(b)!];
      expect(table.compare(a, b)).toBe(x < y ? -1 : x > y ? 1 : 0);
    }
  });
});
