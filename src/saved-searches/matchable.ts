// A saved search's filters in the form the database matches new items against (migration 0010):
// a 4-D box over (price, area, latitude, longitude) for the GiST index, and the other filters as
// columns checked on the searches the box lookup returns. The fold and lower-casing are those of
// `GET /all`, so a search matches exactly the items /all would list for the same filters.
import { searchTerms, viewportAround, type Viewport } from '../content/index.js';
import type { SavedSearchFilters } from './schemas.js';

/** An open end of the box; beyond any price, area or coordinate. */
export const OPEN = 1e300;
/** The latitude/longitude of an item without a location: inside an open box, outside every viewport. */
export const NO_LOCATION = 1e200;

export interface MatchableSearch {
  /** [low corner, high corner] over (price, area, latitude, longitude). */
  box: [number[], number[]];
  unitPrice: string | null;
  unitArea: string | null;
  amenities: string[];
  apartmentTypes: string[];
  projectStatuses: string[];
  searchTerms: string[];
  viewport: Viewport | null;
}

export function matchable(f: SavedSearchFilters): MatchableSearch {
  const viewport = f.area ? viewportAround(f.area.latitude, f.area.longitude, f.area.zoom_level) : null;
  // A viewport across the antimeridian is not one longitude interval: the box leaves longitude
  // open and the exact test on west/east decides.
  const lngRange = viewport && viewport.west <= viewport.east ? [viewport.west, viewport.east] : [-OPEN, OPEN];
  return {
    box: [
      [f.price_from ?? -OPEN, f.area_from ?? -OPEN, viewport?.south ?? -OPEN, lngRange[0]],
      [f.price_to ?? OPEN, f.area_to ?? OPEN, viewport?.north ?? OPEN, lngRange[1]],
    ],
    unitPrice: f.unit_price ?? null,
    unitArea: f.unit_area ?? null,
    amenities: f.amenities ?? [],
    apartmentTypes: (f.apartment_type ?? []).map((v) => v.toLowerCase()),
    projectStatuses: (f.project_status ?? []).map((v) => v.toLowerCase()),
    searchTerms: searchTerms(f.search),
    viewport,
  };
}
