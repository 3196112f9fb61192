// The public surface of src/follows/: what other domains and the doors use of it.
export type { FollowRepository } from './follow-repository.js';
export { followCreatedSchema } from './follow-event.js';
export type { FollowCreated } from './follow-event.js';
