// The public surface of src/read-model/: what other domains and the doors use of it.
export type { Invalidation } from './invalidation.js';
export type { ReadCache } from './read-cache.js';
export type { BlockRelations, CachedFollowings, CachedProfile, CachedPublicProfile, CachedSession, ReadModel } from './read-model.js';
export { SharedReads } from './shared-reads.js';
export type { CachedItem, CachedItemText, CachedPage } from './read-model.js';
