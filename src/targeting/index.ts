// The public surface of src/targeting/: what other domains and the doors use of it.
export { COUNTRY_POPULATION, SUPPORTED_COUNTRIES, findLocationById, findLocationByName, searchLocations } from './locations.js';
export type { TargetLocation } from './locations.js';
export { suggestedBudget } from './suggested-budget.js';
export { placeContains } from './geometry.js';
export type { Point } from './geometry.js';
