// The public surface of src/push/: what other domains and the doors use of it.
export type { PushRepository } from './push-repository.js';
export { pushSubscriptionBody, pushUnsubscribeBody } from './schemas.js';
export type { PushService } from './service.js';
