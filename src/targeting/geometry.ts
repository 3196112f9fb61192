// Where each targetable place lies (vietnam-geometry.json): a centre and an area per location of
// the dataset, drawn as the circle of that area around the centre. No boundary polygons: a circle
// is what the data holds and what "is this viewer in the place" needs to answer in microseconds.
// docs/campaigns.md, "Geometry", names the source and its limits.
import fs from 'node:fs';
import { z } from 'zod';
import { allLocations, findLocationById } from './locations.js';

export interface Point {
  latitude: number;
  longitude: number;
}

interface Circle extends Point {
  radiusKm: number;
}

const geometrySchema = z.object({
  note: z.string().min(1),
  geometry: z.record(z.string(), z.tuple([z.number().min(-90).max(90), z.number().min(-180).max(180), z.number().positive()])),
});

const EARTH_RADIUS_KM = 6371;

function loadGeometry(): Map<string, Circle> {
  const parsed = geometrySchema.parse(JSON.parse(fs.readFileSync(new URL('./vietnam-geometry.json', import.meta.url), 'utf8')));
  const circles = new Map<string, Circle>();
  for (const [id, [latitude, longitude, areaKm2]] of Object.entries(parsed.geometry)) {
    circles.set(id, { latitude, longitude, radiusKm: Math.sqrt(areaKm2 / Math.PI) });
  }
  // A place without geometry could never be matched: refuse to start rather than silently never deliver.
  const missing = allLocations()
    .filter((l) => !circles.has(l.id))
    .map((l) => l.id);
  if (missing.length) throw new Error(`targeting geometry missing for: ${missing.join(', ')}`);
  return circles;
}

const circles = loadGeometry();

/** Great-circle distance in kilometres (haversine). */
export function distanceKm(a: Point, b: Point): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLng = (b.longitude - a.longitude) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The place's centre and the radius of the circle drawn for it. */
export function placeCircle(id: string): Circle | undefined {
  return circles.get(id);
}

/**
 * Whether `point` lies in the place `id` as drawn, or, with `radiusKm`, within that distance of
 * its centre (a `radius` targeting entry). An unknown id contains nothing.
 */
export function placeContains(id: string, point: Point, radiusKm?: number): boolean {
  const circle = circles.get(id);
  if (!circle || !findLocationById(id)) return false;
  return distanceKm(circle, point) <= (radiusKm ?? circle.radiusKm);
}
