// The public surface of src/saved-searches/: what other domains and the doors use of it.
export { createSavedSearchBody, matchesQuery, savedSearchIdParams, savedSearchView } from './schemas.js';
export type { SavedSearchRepository } from './saved-search-repository.js';
