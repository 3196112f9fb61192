// The public surface of src/follows/: what other domains and the doors use of it.
export type { FollowRepository } from './follow-repository.js';
