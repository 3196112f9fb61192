// The public surface of src/live/: what other domains and the doors use of it.
export { EVERYONE } from './audience.js';
export type { Audience, LiveAudience } from './audience.js';
