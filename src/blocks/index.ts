// The public surface of src/blocks/: what other domains and the doors use of it.
export type { BlockRepository } from './block-repository.js';
export { blockRecordSchema, blockedListQuery, blockedListSchema, unblockedSchema } from './schemas.js';
export type { BlockService } from './service.js';
