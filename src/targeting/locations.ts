// The location dataset used for targeting (vietnam-locations.json: 63 provinces and centrally-run
// cities, plus the districts of the largest cities, with approximate 2019 census populations) and
// the lookups over it. The set is small (about 130 entries), so it lives in memory: no table.
import fs from 'node:fs';
import { z } from 'zod';

type LocationType = 'city' | 'district';

export interface TargetLocation {
  id: string;
  name: string;
  /** Provinces and centrally-run cities are `city`; urban and rural districts, towns and Thủ Đức city are `district`. */
  type: LocationType;
  population: number;
  /** The city or province a district belongs to. */
  parentId: string | null;
  aliases: string[];
}

const datasetSchema = z.object({
  country: z.literal('VN'),
  source: z.string().min(1),
  locations: z
    .array(
      z.object({
        id: z.string().regex(/^[a-z0-9-]+$/),
        name: z.string().min(1),
        type: z.enum(['city', 'district']),
        population: z.number().int().positive(),
        parent_id: z.string().nullable(),
        aliases: z.array(z.string()),
      }),
    )
    .min(1),
});

/** Lower-case, accents and punctuation removed, spaces collapsed: `TP. Hồ Chí Minh` → `tp ho chi minh`. */
function foldForSearch(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[đĐ]/g, 'd')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

function loadDataset() {
  const file = new URL('./vietnam-locations.json', import.meta.url);
  const parsed = datasetSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  const locations: TargetLocation[] = parsed.locations.map((l) => ({
    id: l.id,
    name: l.name,
    type: l.type,
    population: l.population,
    parentId: l.parent_id,
    aliases: l.aliases,
  }));
  return { country: parsed.country, locations };
}

const dataset = loadDataset();
const byId = new Map(dataset.locations.map((l) => [l.id, l]));
// Every spelling a location answers to, folded once.
const searchKeys = new Map(dataset.locations.map((l) => [l.id, [l.name, ...l.aliases].map(foldForSearch)]));

export const SUPPORTED_COUNTRIES = [dataset.country] as const;
/** Everyone in the country: the provinces and centrally-run cities cover it once. */
export const COUNTRY_POPULATION = dataset.locations.filter((l) => l.type === 'city').reduce((sum, l) => sum + l.population, 0);

/** Every location of the dataset. */
export function allLocations(): readonly TargetLocation[] {
  return dataset.locations;
}

export function findLocationById(id: string): TargetLocation | undefined {
  return byId.get(id);
}

/**
 * A location by its exact name or alias, accent-insensitive (`ha noi`, `Hà Nội`, `Hanoi`).
 * A city wins over a district of the same name.
 */
export function findLocationByName(name: string): TargetLocation | undefined {
  const folded = foldForSearch(name);
  if (!folded) return undefined;
  let found: TargetLocation | undefined;
  for (const location of dataset.locations) {
    if (searchKeys.get(location.id)!.includes(folded) || foldForSearch(location.id) === folded) {
      if (!found || (found.type === 'district' && location.type === 'city')) found = location;
    }
  }
  return found;
}

interface LocationSearch {
  query: string;
  type: LocationType | 'all';
  limit: number;
}

/**
 * Accent-insensitive search over names and aliases. Ranked: exact match, then a name starting
 * with the query, then a word starting with it, then any substring; within a rank the larger
 * population first (the place a user most likely means).
 */
export function searchLocations({ query, type, limit }: LocationSearch): TargetLocation[] {
  const folded = foldForSearch(query);
  if (!folded) return [];
  const ranked: { location: TargetLocation; rank: number }[] = [];
  for (const location of dataset.locations) {
    if (type !== 'all' && location.type !== type) continue;
    let best = Infinity;
    for (const key of searchKeys.get(location.id)!) {
      let rank = Infinity;
      if (key === folded) rank = 0;
      else if (key.startsWith(folded)) rank = 1;
      else if (` ${key}`.includes(` ${folded}`)) rank = 2;
      else if (key.replace(/ /g, '').includes(folded.replace(/ /g, ''))) rank = 3;
      best = Math.min(best, rank);
    }
    if (best !== Infinity) ranked.push({ location, rank: best });
  }
  ranked.sort((a, b) => a.rank - b.rank || b.location.population - a.location.population || a.location.id.localeCompare(b.location.id));
  return ranked.slice(0, limit).map((r) => r.location);
}
