// Which watched map viewports contain a point, without testing every watcher: a grid of square
// cells at levels k = 0..MAX_LEVEL, cell side 360/2^k degrees. Each viewport is filed under the
// cells of the one level whose side is at least the viewport's larger span, so it touches at most
// 2×2 cells; a point looks up its own cell at each level in use (at most MAX_LEVEL+1 map reads)
// and only the viewports filed there are tested exactly. Node-local: each node indexes its own
// sockets (feed-viewport-sockets.ts, docs/feed.md).
import type { Viewport } from '../../src/content/index.js';

const MAX_LEVEL = 24;

const sideAt = (level: number) => 360 / 2 ** level;
const cellKey = (level: number, x: number, y: number) => `${level}:${x}:${y}`;
const column = (longitude: number, side: number, columns: number) => ((Math.floor((longitude + 180) / side) % columns) + columns) % columns;
const row = (latitude: number, side: number) => Math.floor((latitude + 90) / side);

/** The same test as the `/completed` viewport filter (listing-repository viewportConditions). */
export function viewportContains(v: Viewport, latitude: number, longitude: number): boolean {
  if (latitude < v.south || latitude > v.north) return false;
  return v.west <= v.east ? longitude >= v.west && longitude <= v.east : longitude >= v.west || longitude <= v.east;
}

interface Entry {
  viewport: Viewport;
  level: number;
  cells: string[];
}

export class ViewportIndex<K> {
  private readonly cells = new Map<string, Set<K>>();
  private readonly entries = new Map<K, Entry>();
  /** Watchers per level, so a lookup skips the levels nobody uses. */
  private readonly levelUse = new Map<number, number>();

  get size(): number {
    return this.entries.size;
  }

  /** Files `key` under `viewport`, replacing its earlier one. */
  watch(key: K, viewport: Viewport): void {
    this.unwatch(key);
    const lngSpan = viewport.west <= viewport.east ? viewport.east - viewport.west : viewport.east + 360 - viewport.west;
    const span = Math.max(lngSpan, viewport.north - viewport.south);
    let level = 0;
    while (level < MAX_LEVEL && sideAt(level + 1) >= span) level++;
    const side = sideAt(level);
    const columns = 2 ** level;
    const east = viewport.west <= viewport.east ? viewport.east : viewport.east + 360;
    const firstColumn = Math.floor((viewport.west + 180) / side);
    const lastColumn = Math.floor((east + 180) / side);
    const cells: string[] = [];
    for (let x = firstColumn; x <= lastColumn; x++) {
      for (let y = row(viewport.south, side); y <= row(viewport.north, side); y++) {
        const key = cellKey(level, ((x % columns) + columns) % columns, y);
        if (!cells.includes(key)) cells.push(key);
      }
    }
    for (const cell of cells) {
      let members = this.cells.get(cell);
      if (!members) this.cells.set(cell, (members = new Set()));
      members.add(key);
    }
    this.entries.set(key, { viewport, level, cells });
    this.levelUse.set(level, (this.levelUse.get(level) ?? 0) + 1);
  }

  unwatch(key: K): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    for (const cell of entry.cells) {
      const members = this.cells.get(cell);
      members?.delete(key);
      if (members && !members.size) this.cells.delete(cell);
    }
    this.entries.delete(key);
    const used = (this.levelUse.get(entry.level) ?? 1) - 1;
    if (used) this.levelUse.set(entry.level, used);
    else this.levelUse.delete(entry.level);
  }

  /** Every key whose viewport contains the point. */
  containing(latitude: number, longitude: number): K[] {
    const found: K[] = [];
    for (const level of this.levelUse.keys()) {
      const side = sideAt(level);
      const members = this.cells.get(cellKey(level, column(longitude, side, 2 ** level), row(latitude, side)));
      if (!members) continue;
      for (const key of members) {
        if (viewportContains(this.entries.get(key)!.viewport, latitude, longitude)) found.push(key);
      }
    }
    return found;
  }
}
