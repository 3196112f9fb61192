// Facet counts of `/all` (CONTRACT §23) in this process: the value sets (facet-bits.ts, as the
// index answers now) against reading every selected item (test/content/search-facets-walk.ts,
// as it answered before), both on the same store and the same queries in one run.
//   node --expose-gc --import tsx bench/facet-counts.ts
// Knobs: BENCH_ITEMS (100000), BENCH_QUERIES (2000), BENCH_UPLOADERS (5000).
// Generates the items (test/content/index-rows.ts: facet values common and rare, three
// languages, units, places, uploaders, 80 % published), then times BENCH_QUERIES random `/all`
// queries, each different (visibility, blocks, search, price/area/creation ranges, language,
// units, facet filters; no viewport, which `/all` never has), every one asking all four facets;
// each query is answered both ways (which first alternates; its search terms looked up before
// either), after a warm-up on other queries, and the answers are compared. Prints mean, p50 and p99 ms per query for each and their ratio,
// overall and for the queries with and without a search, and the heap the sets take (with
// --expose-gc). Not part of `npm test`.
import os from 'node:os';
import { z } from 'zod';
import { IndexStore } from '../src/content/search-index/index-store.js';
import { facetsOf } from '../src/content/search-index/index-facets.js';
import { FacetBits } from '../src/content/search-index/facet-bits.js';
import type { FacetName } from '../src/content/search-index/index-types.js';
import { facetsByWalk } from '../test/content/search-facets-walk.js';
import { generatedRow, randomQuery, rowSource } from '../test/content/index-rows.js';

const env = z
  .object({
    BENCH_ITEMS: z.coerce.number().int().positive().default(100_000),
    BENCH_QUERIES: z.coerce.number().int().positive().default(2_000),
    BENCH_UPLOADERS: z.coerce.number().int().positive().default(5_000),
  })
  .parse(process.env);

const ALL: FacetName[] = ['amenities', 'apartment_type', 'project_status', 'price'];
const gc = (globalThis as { gc?: () => void }).gc;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
const summary = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  return { mean, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
};
const ms = (n: number) => n.toFixed(3);

function main(): void {
  console.log(
    `node ${process.version}, ${os.cpus().length} cpus (${os.cpus()[0]?.model}), load average ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  const source = rowSource(42, env.BENCH_UPLOADERS);
  const store = new IndexStore();
  const loadStart = performance.now();
  for (let n = 0; n < env.BENCH_ITEMS; n++) store.put(generatedRow(source, `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`));
  store.finish();
  console.log(`${store.size()} items loaded in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`);

  // The sets' heap: the same sets built again beside the store.
  if (gc) {
    gc();
    gc();
    const before = process.memoryUsage().heapUsed;
    const sets = new FacetBits();
    sets.grow(store.slots.used);
    for (const slot of store.slots.held()) sets.add(store.slots, slot);
    sets.settle();
    gc();
    gc();
    const bytes = process.memoryUsage().heapUsed - before;
    console.log(
      `value sets: ${(bytes / 2 ** 20).toFixed(1)} MB (${(bytes / store.size()).toFixed(0)} bytes per item), scratch included; ${sets.amenities.size} amenities`,
    );
  }

  const queries = (n: number) => Array.from({ length: n }, () => randomQuery(source, false).query);
  // Warm-up on other queries, both ways.
  for (const query of queries(300)) {
    facetsByWalk(store, query, ALL);
    facetsOf(store, query, ALL);
  }
  const walk: number[] = [];
  const sets: number[] = [];
  const searched = { walk: [] as number[], sets: [] as number[] };
  const unsearched = { walk: [] as number[], sets: [] as number[] };
  let differ = 0;
  queries(env.BENCH_QUERIES).forEach((query, i) => {
    // The search's term matches are worked out once and remembered: not by whichever runs first.
    store.termsOf(query.search);
    const timed = (count: typeof facetsOf) => {
      const start = performance.now();
      const facets = count(store, query, ALL);
      return { facets, ms: performance.now() - start };
    };
    const [a, b] = i % 2 === 0 ? [timed(facetsByWalk), timed(facetsOf)] : [timed(facetsOf), timed(facetsByWalk)].reverse();
    walk.push(a.ms);
    sets.push(b.ms);
    if (JSON.stringify(a.facets) !== JSON.stringify(b.facets)) differ++;
    const kind = query.search ? searched : unsearched;
    kind.walk.push(a.ms);
    kind.sets.push(b.ms);
  });
  console.log(`${env.BENCH_QUERIES} queries, all four facets; answers differing: ${differ}`);
  console.log('| queries | counted by | mean ms | p50 ms | p99 ms |');
  console.log('|---|---|---|---|---|');
  const rows = (label: string, times: { walk: number[]; sets: number[] }) => {
    const w = summary(times.walk);
    const s = summary(times.sets);
    console.log(`| ${label} | reading each item (before) | ${ms(w.mean)} | ${ms(w.p50)} | ${ms(w.p99)} |`);
    console.log(`| ${label} | value sets (now) | ${ms(s.mean)} | ${ms(s.p50)} | ${ms(s.p99)} |`);
    console.log(`| ${label} | ratio | ${(w.mean / s.mean).toFixed(1)}× | ${(w.p50 / s.p50).toFixed(1)}× | ${(w.p99 / s.p99).toFixed(1)}× |`);
  };
  rows(`all ${walk.length}`, { walk, sets });
  rows(`with a search, ${searched.walk.length}`, searched);
  rows(`without, ${unsearched.walk.length}`, unsearched);
  console.log(
    `load average after: ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
}

main();
