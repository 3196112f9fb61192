// The map side of the listing index (CONTRACT §23, docs/search.md "Map clusters"): a grid in
// web-mercator space whose cells split in four from one level to the next, and the published items
// that have a position kept in the order of their finest cell (a Z-order curve). A cell of any
// level is then one run of that order, found by two binary searches, and running sums of latitude
// and longitude give its count and mean position without visiting its items.

/** At most this many clusters or points in one answer (CONTRACT §23). */
export const MAX_CLUSTERS = 300;
/** Cells per tile side: at zoom z the grid has 2^(z+2) cells across the world (64 px cells on 256 px tiles). */
const CELL_LEVELS_PER_ZOOM = 2;
const MAX_MERCATOR_LAT = 85.05112878;
/** The finest level kept (zoom ≤ 20 asks for level ≤ 22); a cell code of it fits a double exactly. */
export const FINEST_LEVEL = 24;

/** A map box (no antimeridian crossing: min_lng ≤ max_lng) and a zoom. */
export interface ClusterBox {
  minLat: number;
  minLng: number;
  maxLat: number;
  maxLng: number;
  zoom: number;
}

export interface Cluster {
  latitude: number;
  longitude: number;
  count: number;
  id?: string;
}

export const mercatorX = (lng: number): number => (lng + 180) / 360;
export function mercatorY(lat: number): number {
  const clamped = Math.max(-MAX_MERCATOR_LAT, Math.min(MAX_MERCATOR_LAT, lat));
  const sin = Math.sin((clamped * Math.PI) / 180);
  return 0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI);
}
export const cellOf = (value: number, cells: number): number => Math.min(cells - 1, Math.max(0, Math.floor(value * cells)));

/**
 * The grid level of a box at a zoom: zoom + 2 levels (64 px cells), coarser when the box would
 * span more than MAX_CLUSTERS cells. Cells of level L + 1 lie inside those of level L, and a
 * larger zoom never gives a coarser level for the same box, so zoom z + 1's clusters split zoom
 * z's.
 */
export function clusterLevel(box: ClusterBox): number {
  return coarsestBelow(box, box.zoom + CELL_LEVELS_PER_ZOOM, MAX_CLUSTERS);
}

/** The finest level from `level` down at which a box spans at most `most` cells. */
export function coarsestBelow(box: ClusterBox, level: number, most: number): number {
  const spanned = (l: number) => {
    const cells = 2 ** l;
    const wide = cellOf(mercatorX(box.maxLng), cells) - cellOf(mercatorX(box.minLng), cells) + 1;
    const high = cellOf(mercatorY(box.minLat), cells) - cellOf(mercatorY(box.maxLat), cells) + 1;
    return wide * high;
  };
  while (level > 0 && spanned(level) > most) level--;
  return level;
}

/** Spreads the low 12 bits of n to the even bits of a 24-bit number. */
function spread12(n: number): number {
  n &= 0xfff;
  n = (n | (n << 8)) & 0x00ff00ff;
  n = (n | (n << 4)) & 0x0f0f0f0f;
  n = (n | (n << 2)) & 0x33333333;
  n = (n | (n << 1)) & 0x55555555;
  return n;
}

/** The Z-order code of cell (x, y) of a level ≤ FINEST_LEVEL: x's bits on the even places, y's on the odd. */
function cellCode(x: number, y: number): number {
  const low = spread12(x) | (spread12(y) << 1);
  const high = spread12(x / 4096) | (spread12(y / 4096) << 1);
  return high * 2 ** 24 + (low >>> 0);
}

/** A cell across a box's edge with at most this many items is checked item by item. */
const ONE_BY_ONE = 128;

/** What a cell holds in a box: how many items, the sums of their positions, one of them (-1: none). */
interface CellTotal {
  count: number;
  lat: number;
  lng: number;
  slot: number;
}

/** A run [from, to) of the order. */
interface Run {
  from: number;
  to: number;
}

/** The published items with a position, in the order of their finest cell's code. */
export class MapOrder {
  order = new Int32Array(0);
  length = 0;
  private code = new Float64Array(0);
  private sumLat = new Float64Array(1);
  private sumLng = new Float64Array(1);
  private summed = false;

  constructor(
    private readonly latitude: () => Float64Array,
    private readonly longitude: () => Float64Array,
  ) {}

  grow(capacity: number): void {
    const order = new Int32Array(capacity);
    order.set(this.order.subarray(0, this.length));
    this.order = order;
    const code = new Float64Array(capacity);
    code.set(this.code);
    this.code = code;
    this.sumLat = new Float64Array(capacity + 1);
    this.sumLng = new Float64Array(capacity + 1);
    this.summed = false;
  }

  /** The finest cell code of a slot's position (call after the slot's position is written). */
  private codeOf(slot: number): number {
    const cells = 2 ** FINEST_LEVEL;
    return cellCode(cellOf(mercatorX(this.longitude()[slot]), cells), cellOf(mercatorY(this.latitude()[slot]), cells));
  }

  /** The first position whose (code, slot) is not below (code, slot). */
  private lowerBound(code: number, slot: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.code[this.order[mid]];
      if (c < code || (c === code && this.order[mid] < slot)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(slot: number): void {
    const code = this.codeOf(slot);
    this.code[slot] = code;
    const at = this.lowerBound(code, slot);
    this.order.copyWithin(at + 1, at, this.length);
    this.order[at] = slot;
    this.length++;
    this.summed = false;
  }

  /** Removes a slot inserted before (found by the code it was inserted with). */
  remove(slot: number): void {
    const at = this.lowerBound(this.code[slot], slot);
    if (this.order[at] !== slot) return;
    this.order.copyWithin(at, at + 1, this.length);
    this.length--;
    this.summed = false;
  }

  rebuild(slots: Iterable<number>): void {
    const all: number[] = [];
    for (const slot of slots) {
      this.code[slot] = this.codeOf(slot);
      all.push(slot);
    }
    all.sort((a, b) => this.code[a] - this.code[b] || a - b);
    this.order.set(all);
    this.length = all.length;
    this.summed = false;
  }

  /** The run of the items in cell (x, y) of a level. */
  run(level: number, x: number, y: number): Run {
    const scale = 4 ** (FINEST_LEVEL - level);
    const from = cellCode(x, y) * scale;
    return { from: this.lowerBound(from, -1), to: this.lowerBound(from + scale, -1) };
  }

  /**
   * How many items of cell (x, y) of a level lie in a box, the sums of their positions and one of
   * them: a cell inside the box from its run's running sums, a cell across the box's edge from its
   * four children (down to a few items, which are checked one by one), so an answer costs about
   * the cells along the box's edge, not its items.
   */
  totalIn(box: MercatorBox, inBox: (slot: number) => boolean, level: number, x: number, y: number, into: CellTotal): CellTotal {
    const relation = relationOf(box, level, x, y);
    if (relation === 'outside') return into;
    const scale = 4 ** (FINEST_LEVEL - level);
    const start = cellCode(x, y) * scale;
    const from = this.lowerBound(start, -1);
    const to = this.lowerBound(start + scale, -1);
    if (from === to) return into;
    if (relation === 'inside') {
      this.sums({ from, to }, into);
      into.count += to - from;
      into.slot = this.order[from];
      return into;
    }
    if (to - from <= ONE_BY_ONE || level >= FINEST_LEVEL) {
      const lat = this.latitude();
      const lng = this.longitude();
      for (let i = from; i < to; i++) {
        const slot = this.order[i];
        if (!inBox(slot)) continue;
        into.count++;
        into.lat += lat[slot];
        into.lng += lng[slot];
        into.slot = slot;
      }
      return into;
    }
    for (let child = 0; child < 4; child++) this.totalIn(box, inBox, level + 1, 2 * x + (child & 1), 2 * y + (child >> 1), into);
    return into;
  }

  /** Adds the sums of the latitudes and longitudes of the items in a run to `into`. */
  sums(run: Run, into: { lat: number; lng: number }): void {
    if (!this.summed) {
      const lat = this.latitude();
      const lng = this.longitude();
      for (let i = 0; i < this.length; i++) {
        const slot = this.order[i];
        this.sumLat[i + 1] = this.sumLat[i] + lat[slot];
        this.sumLng[i + 1] = this.sumLng[i] + lng[slot];
      }
      this.summed = true;
    }
    into.lat += this.sumLat[run.to] - this.sumLat[run.from];
    into.lng += this.sumLng[run.to] - this.sumLng[run.from];
  }
}

/** Where a cell lies against a box: wholly inside, wholly outside, or across its edge. */
type Relation = 'inside' | 'outside' | 'edge';

/** The box in mercator space, for relationOf. */
export interface MercatorBox {
  west: number;
  east: number;
  north: number;
  south: number;
}

export const mercatorBoxOf = (box: ClusterBox): MercatorBox => ({
  west: mercatorX(box.minLng),
  east: mercatorX(box.maxLng),
  north: mercatorY(box.maxLat),
  south: mercatorY(box.minLat),
});

// A cell counts as inside or outside only with a margin: an item near the box's edge is checked one by one.
const MARGIN = 1e-9;

function relationOf(box: MercatorBox, level: number, x: number, y: number): Relation {
  const cells = 2 ** level;
  const left = x / cells;
  const right = (x + 1) / cells;
  const top = y / cells;
  const bottom = (y + 1) / cells;
  if (right < box.west - MARGIN || left > box.east + MARGIN || bottom < box.north - MARGIN || top > box.south + MARGIN) return 'outside';
  if (left > box.west + MARGIN && right < box.east - MARGIN && top > box.north + MARGIN && bottom < box.south - MARGIN) return 'inside';
  return 'edge';
}

/** The cells of a level a box covers, row by row (north to south). */
export function cellsOf(box: ClusterBox, level: number): { x: number; y: number }[] {
  const cells = 2 ** level;
  const m = mercatorBoxOf(box);
  const found: { x: number; y: number }[] = [];
  for (let y = cellOf(m.north, cells); y <= cellOf(m.south, cells); y++) {
    for (let x = cellOf(m.west, cells); x <= cellOf(m.east, cells); x++) found.push({ x, y });
  }
  return found;
}
