// The grid index behind listing:new finds exactly the watched viewports that contain a point: the
// same answer as testing every viewport, for random viewports at every zoom (antimeridian and
// whole-world ones included) and random points, some on the viewports' edges.
import { describe, expect, it } from 'vitest';
import { ViewportIndex, viewportContains } from '../../realtime/namespaces/viewport-index.js';
import { viewportAround, type Viewport } from '../../src/content/index.js';

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

describe('ViewportIndex', () => {
  it('should answer what testing every viewport answers', () => {
    const next = random(7);
    const index = new ViewportIndex<number>();
    const viewports: Viewport[] = [];
    for (let i = 0; i < 2_000; i++) {
      const v = viewportAround(next() * 170 - 85, next() * 360 - 180, next() * 22);
      viewports.push(v);
      index.watch(i, v);
    }
    // Some watchers leave, some move.
    for (let i = 0; i < 2_000; i += 7) index.unwatch(i);
    for (let i = 3; i < 2_000; i += 11) {
      viewports[i] = viewportAround(10.7 + next(), 179.9, 10 + next() * 8);
      index.watch(i, viewports[i]);
    }
    const points: [number, number][] = [];
    for (let i = 0; i < 3_000; i++) points.push([next() * 180 - 90, next() * 360 - 180]);
    for (const v of viewports.slice(0, 200)) points.push([v.south, v.west], [v.north, v.east], [(v.south + v.north) / 2, 180], [v.north, -180]);

    for (const [lat, lng] of points) {
      const expected = viewports.map((v, i) => (i % 7 === 0 && !(i % 11 === 3) ? -1 : viewportContains(v, lat, lng) ? i : -1)).filter((i) => i >= 0);
      expect(index.containing(lat, lng).sort((a, b) => a - b)).toEqual(expected);
    }
    expect(index.size).toBe(viewports.filter((_, i) => !(i % 7 === 0 && !(i % 11 === 3))).length);
  });

  it('should file a viewport crossing the antimeridian on both sides', () => {
    const index = new ViewportIndex<string>();
    const v = viewportAround(0, 179.95, 10);
    expect(v.west).toBeGreaterThan(v.east);
    index.watch('fiji', v);
    expect(index.containing(0, 179.99)).toEqual(['fiji']);
    expect(index.containing(0, -179.99)).toEqual(['fiji']);
    expect(index.containing(0, 170)).toEqual([]);
  });
});
