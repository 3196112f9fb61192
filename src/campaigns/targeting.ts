// Turning a request's targeting (location ids or names, radius entries, audience) into the places
// and the population the estimate model works on. Unknown places are 400: an estimate over a
// place we cannot size would be made up.
import { badRequest } from '../shared/errors.js';
import { COUNTRY_POPULATION, findLocationById, findLocationByName, type TargetLocation } from '../targeting/index.js';
import type { AudienceInput } from './estimate-model.js';

interface LocationRef {
  id: string;
  name?: string;
  type: 'city' | 'district' | 'radius';
  radius_km?: number;
}

interface ResolvedLocation {
  id: string;
  name: string;
  type: 'city' | 'district' | 'radius';
  /** People counted for this entry. */
  population: number;
  radius_km?: number;
}

interface ResolvedTargeting {
  /** Empty means the whole country. */
  locations: ResolvedLocation[];
  population: number;
}

/** The targeting a campaign or estimation keeps: the places, the audience and the people they make. */
export interface StoredTargeting {
  locations: ResolvedLocation[];
  audience: AudienceInput;
  population: number;
}

const DEFAULT_RADIUS_KM = 10;
/** Radius of a circle about as large as a typical province / district, for radius targeting. */
const TYPICAL_RADIUS_KM = { city: 30, district: 5 } as const;

function unknownLocation(field: string): never {
  throw badRequest('targeting.error.unknown_location', `Unknown location at ${field}: use an id from GET /api/v1/targeting/locations`, {
    field,
    constraint: 'a location id from /targeting/locations',
  });
}

/** Estimate bodies: `{id, name?, type}` entries, `radius` ones centred on a dataset place. */
export function resolveLocationRefs(refs: LocationRef[], fieldPrefix: string): ResolvedTargeting {
  const entries: { location: TargetLocation; ref: LocationRef }[] = refs.map((ref, i) => {
    const location = findLocationById(ref.id);
    if (!location) unknownLocation(`${fieldPrefix}.${i}.id`);
    if (ref.type !== 'radius' && ref.type !== location.type) {
      throw badRequest('targeting.error.location_type_mismatch', `${ref.id} is a ${location.type}, not a ${ref.type}`, {
        field: `${fieldPrefix}.${i}.type`,
        constraint: location.type,
      });
    }
    return { location, ref };
  });
  return combine(entries);
}

/** Create and boost bodies: plain ids, or (boost) names such as `Hà Nội` / `ha noi`. */
export function resolveLocationNames(values: string[], fieldPrefix: string, allowNames: boolean): ResolvedTargeting {
  const entries = values.map((value, i) => {
    const location = findLocationById(value) ?? (allowNames ? findLocationByName(value) : undefined);
    if (!location) unknownLocation(`${fieldPrefix}.${i}`);
    return { location, ref: { id: location.id, type: location.type } };
  });
  return combine(entries);
}

// Sums the people targeted, without counting a district twice when its city is targeted too,
// nor the same place twice.
function combine(entries: { location: TargetLocation; ref: LocationRef }[]): ResolvedTargeting {
  if (entries.length === 0) return { locations: [], population: COUNTRY_POPULATION };
  const wholeCities = new Set(entries.filter((e) => e.ref.type === 'city').map((e) => e.location.id));
  const seen = new Set<string>();
  const locations: ResolvedLocation[] = [];
  let population = 0;
  for (const { location, ref } of entries) {
    const key = ref.type === 'radius' ? `radius:${location.id}:${ref.radius_km ?? DEFAULT_RADIUS_KM}` : location.id;
    if (seen.has(key)) continue;
    seen.add(key);
    let people = location.population;
    let radiusKm: number | undefined;
    if (ref.type === 'radius') {
      radiusKm = ref.radius_km ?? DEFAULT_RADIUS_KM;
      // People within the circle, assuming the place's people spread over a circle of its typical size.
      people = Math.round(location.population * Math.min(1, (radiusKm / TYPICAL_RADIUS_KM[location.type]) ** 2));
    }
    // Already counted: a district (or a circle) inside a city targeted as a whole.
    const insideWholeCity = (location.parentId !== null && wholeCities.has(location.parentId)) || (ref.type === 'radius' && wholeCities.has(location.id));
    locations.push({ id: location.id, name: location.name, type: ref.type, population: people, ...(radiusKm ? { radius_km: radiusKm } : {}) });
    if (!insideWholeCity) population += people;
  }
  return { locations, population: Math.min(population, COUNTRY_POPULATION) };
}

const DEFAULT_AGE_RANGE = { min: 18, max: 65 };

interface AudienceRequest {
  age_range?: { min: number; max: number };
  interests?: string[];
  behaviors?: string[];
}

export function normaliseAudience(audience: AudienceRequest | undefined): AudienceInput {
  const ageRange = audience?.age_range ?? DEFAULT_AGE_RANGE;
  // Interests and behaviours compare case- and space-insensitively; duplicates count once.
  const clean = (list: string[] | undefined) => [...new Set((list ?? []).map((s) => s.trim().toLowerCase()).filter(Boolean))];
  return { ageRange, interests: clean(audience?.interests), behaviors: clean(audience?.behaviors) };
}
