// Map clusters (CONTRACT §23, docs/search.md "Map clusters") from a loaded IndexStore: the
// published items in a box that match the query, one cluster per grid cell of the zoom's level.
import { ItemFilter } from './index-filter.js';
import { cellOf, cellsOf, clusterLevel, mercatorBoxOf, mercatorX, mercatorY, type Cluster, type ClusterBox } from './index-map.js';
import { countSlots, forEachSlot, hasSlot } from './slot-bits.js';
import type { IndexStore } from './index-store.js';
import type { IndexQuery } from './index-types.js';

/**
 * The published items in the box matching the query, clustered for the zoom (one cluster per
 * grid cell, at the mean position of its items; `id` on a single item); total: all of them.
 * Items of `hidden` uploaders (the caller's blocks) are left out.
 */
export function clustersOf(store: IndexStore, query: IndexQuery, box: ClusterBox, hidden: ReadonlySet<string>): { clusters: Cluster[]; total: number } {
  const terms = store.termsOf(query.search);
  if (terms && (terms.length === 0 || terms[0].count === 0)) return { clusters: [], total: 0 };
  const select: IndexQuery = { visibility: { kind: 'published' }, filters: query.filters, hidden };
  const level = clusterLevel(box);
  const cells = cellsOf(box, level);
  const s = store.slots;
  const inBox = (slot: number) => {
    const lat = s.latitude[slot];
    const lng = s.longitude[slot];
    return lat >= box.minLat && lat <= box.maxLat && lng >= box.minLng && lng <= box.maxLng;
  };
  const clusters: Cluster[] = [];
  let total = 0;
  const cluster = (count: number, lat: number, lng: number, single: number) => {
    if (count === 0) return;
    total += count;
    // One item: its own position (a difference of running sums is off in the last digits).
    clusters.push(
      count === 1
        ? { latitude: s.latitude[single], longitude: s.longitude[single], count: 1, id: s.idOf(single) }
        : { latitude: lat / count, longitude: lng / count, count },
    );
  };
  if (!terms && !new ItemFilter(store.slots, select).filters && !hidden.size) {
    // Nothing but the box: each cell's count and position from the map order's runs.
    const mercator = mercatorBoxOf(box);
    for (const { x, y } of cells) {
      const t = store.map.totalIn(mercator, inBox, level, x, y, { count: 0, lat: 0, lng: 0, slot: -1 });
      cluster(t.count, t.lat, t.lng, t.slot);
    }
    return { clusters, total };
  }
  // The search and the filters as bits; what they leave (blocks, codes) tested item by item.
  const words = store.words();
  store.select(words, select, terms);
  const selected = store.selected;
  const residual = store.residualOf(select, false);
  const passes = (slot: number) => hasSlot(selected, slot) && (residual === null || residual.passes(slot));
  const runs = cells.map((c) => store.map.run(level, c.x, c.y));
  const onMapInBox = runs.reduce((n, r) => n + r.to - r.from, 0);
  if (countSlots(selected, words) < onMapInBox) return clustersOfSelected(store, words, residual, level, inBox);
  for (const run of runs) {
    let count = 0;
    let lat = 0;
    let lng = 0;
    let single = -1;
    for (let i = run.from; i < run.to; i++) {
      const slot = store.map.order[i];
      if (!inBox(slot) || !passes(slot)) continue;
      count++;
      lat += s.latitude[slot];
      lng += s.longitude[slot];
      single = slot;
    }
    cluster(count, lat, lng, single);
  }
  return { clusters, total };
}

/** Clusters of fewer selected items than the box holds: each one's cell worked out, then grouped. */
function clustersOfSelected(
  store: IndexStore,
  words: number,
  residual: ItemFilter | null,
  level: number,
  inBox: (slot: number) => boolean,
): { clusters: Cluster[]; total: number } {
  const s = store.slots;
  const cells = 2 ** level;
  const byCell = new Map<number, { lat: number; lng: number; count: number; slot: number; y: number; x: number }>();
  let total = 0;
  forEachSlot(store.selected, words, (slot) => {
    if (!store.onMap(slot) || !inBox(slot) || (residual !== null && !residual.passes(slot))) return;
    const x = cellOf(mercatorX(s.longitude[slot]), cells);
    const y = cellOf(mercatorY(s.latitude[slot]), cells);
    const key = y * cells + x;
    const cell = byCell.get(key);
    total++;
    if (cell) {
      cell.lat += s.latitude[slot];
      cell.lng += s.longitude[slot];
      cell.count++;
    } else byCell.set(key, { lat: s.latitude[slot], lng: s.longitude[slot], count: 1, slot, y, x });
  });
  const clusters = [...byCell.values()]
    .sort((a, b) => a.y - b.y || a.x - b.x)
    .map((c) =>
      c.count === 1
        ? { latitude: c.lat, longitude: c.lng, count: 1, id: s.idOf(c.slot) }
        : { latitude: c.lat / c.count, longitude: c.lng / c.count, count: c.count },
    );
  return { clusters, total };
}
