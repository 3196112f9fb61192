// Facet counts from the value sets (src/content/search-index/facet-bits.ts, index-facets.ts)
// against the counts read item by item (search-facets-walk.ts, the way they were computed
// before): for random queries over every condition (visibility, blocks, search, ranges, language,
// units, facet filters, viewports), after a load, after items change, go, come and are held
// (a suspension) and released, and after a fresh load, the counts are exactly equal. The index
// alone, in this process: search.test.ts checks facets through `/all`.
import { describe, expect, it } from 'vitest';
import { IndexStore } from '../../src/content/search-index/index-store.js';
import { facetsOf } from '../../src/content/search-index/index-facets.js';
import type { Facets, IndexRow } from '../../src/content/search-index/index-types.js';
import { facetsByWalk } from './search-facets-walk.js';
import { generatedRow, randomQuery, rowSource, type RowSource } from './index-rows.js';

const ITEMS = 4_000;
const QUERIES = 2_000;
/** Each test answers a few thousand queries twice: seconds on a quiet machine, several times that on a busy one. */
const TIMEOUT_MS = 180_000;

/** The store and, beside it, every row it holds (what a fresh load would read). */
class Catalogue {
  readonly store = new IndexStore();
  readonly rows = new Map<string, IndexRow>();

  put(row: IndexRow): void {
    this.store.put(row);
    this.rows.set(row.id, row);
  }

  drop(id: string): void {
    this.store.drop(id);
    this.rows.delete(id);
  }
}

// Ids are uuids, as contents.id is (the index keeps them as 16 bytes).
const idOf = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** How many values a facet answer counts, and their sum. */
function sizeOf(facets: Facets): { values: number; sum: number } {
  const counts = [
    ...Object.values(facets.amenities ?? {}),
    ...Object.values(facets.apartment_type ?? {}),
    ...Object.values(facets.project_status ?? {}),
    ...(facets.price ?? []).map((b) => b.count),
  ];
  return { values: counts.length, sum: counts.reduce((a, b) => a + b, 0) };
}

/** Random queries: the sets' counts equal the walk's; returns how many answers counted something. */
function checkQueries(store: IndexStore, source: RowSource): number {
  let counted = 0;
  let values = 0;
  for (let i = 0; i < QUERIES; i++) {
    const { query, names } = randomQuery(source);
    const expected = facetsByWalk(store, query, names);
    const found = facetsOf(store, query, names);
    if (JSON.stringify(found) !== JSON.stringify(expected)) {
      const shown = { ...query, hidden: [...(query.hidden ?? [])] };
      expect(found, `query ${i}: ${JSON.stringify(shown)} facets ${names.join(',')}`).toEqual(expected);
    }
    const size = sizeOf(found);
    if (size.sum > 0) counted++;
    values += size.values;
  }
  // Not trivially equal: most answers count something, many values each.
  expect(counted).toBeGreaterThan(QUERIES / 3);
  expect(values).toBeGreaterThan(QUERIES * 3);
  return counted;
}

describe('facet counts from value sets (CONTRACT §23)', () => {
  const source = rowSource(20261207, 80);
  const catalogue = new Catalogue();

  it(
    'should count exactly as reading each item after a load',
    () => {
      for (let n = 0; n < ITEMS; n++) catalogue.put(generatedRow(source, idOf(n)));
      catalogue.store.finish();
      // Counts that visibly depend on every condition: all items over every facet, and fewer with filters.
      const all = facetsOf(catalogue.store, { visibility: { kind: 'every' }, filters: {} }, ['price']);
      expect(all.price!.reduce((n, b) => n + b.count, 0)).toBe(ITEMS);
      const pool = facetsOf(catalogue.store, { visibility: { kind: 'published' }, filters: { amenities: ['pool'] } }, ['price', 'amenities']);
      const published = [...catalogue.rows.values()].filter((r) => r.status === 'completed');
      expect(pool.amenities!.pool).toBe(published.filter((r) => r.amenities.includes('pool')).length);
      expect(pool.price!.reduce((n, b) => n + b.count, 0)).toBe(pool.amenities!.pool);
      checkQueries(catalogue.store, source);
    },
    TIMEOUT_MS,
  );

  it(
    'should count exactly as reading each item as items change, go, come, and are held and released',
    () => {
      const { next } = source;
      let fresh = ITEMS;
      // Every item edited (values move between sets; a common amenity becomes rare), some dropped, new ones taking freed slots.
      for (const id of [...catalogue.rows.keys()]) {
        const roll = next();
        if (roll < 0.1) catalogue.drop(id);
        else catalogue.put({ ...generatedRow(source, id, 1), uploader_id: catalogue.rows.get(id)!.uploader_id });
        if (roll > 0.92) catalogue.put(generatedRow(source, idOf(fresh++), 1));
      }
      checkQueries(catalogue.store, source);
      // A suspension holds an uploader's items (shown `under_review`), a deleted account's go.
      const [held, deleted] = [source.uploaders[1], source.uploaders[2]];
      for (const row of [...catalogue.rows.values()]) {
        if (row.uploader_id === held) catalogue.put({ ...row, status: 'under_review' });
        if (row.uploader_id === deleted) catalogue.drop(row.id);
      }
      expect(catalogue.store.idsOfUploader(deleted)).toEqual([]);
      checkQueries(catalogue.store, source);
      // The hold lifted.
      for (const row of [...catalogue.rows.values()]) if (row.uploader_id === held) catalogue.put({ ...row, status: 'completed' });
      checkQueries(catalogue.store, source);
    },
    TIMEOUT_MS,
  );

  it(
    'should count exactly as reading each item after a fresh load with changes heard during it',
    () => {
      const { next } = source;
      const reload = new IndexStore();
      const rows = [...catalogue.rows.values()];
      for (const row of rows) reload.put(row);
      // Changes heard while loading reach the copy being loaded before its finish.
      for (const row of rows.slice(0, 300)) {
        if (next() < 0.5) reload.drop(row.id);
        reload.put({ ...row, price: row.price * 3, amenities: [...row.amenities, 'sauna'] });
      }
      reload.finish();
      for (const row of rows.slice(0, 300)) catalogue.put({ ...row, price: row.price * 3, amenities: [...row.amenities, 'sauna'] });
      checkQueries(reload, source);
      // The same answers as the copy kept up to date item by item.
      for (let i = 0; i < 200; i++) {
        const { query, names } = randomQuery(source);
        expect(facetsOf(reload, query, names)).toEqual(facetsOf(catalogue.store, query, names));
      }
    },
    TIMEOUT_MS,
  );
});
