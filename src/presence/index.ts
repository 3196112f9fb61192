// The public surface of src/presence/: what other domains and the doors use of it.
export { presenceQuery } from './schemas.js';
export { presenceItemSchema, presenceViewSchema } from './presence-view.js';
export type { PresenceView } from './presence-view.js';
export type { PresenceRepository } from './presence-repository.js';
