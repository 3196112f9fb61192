// The public surface of src/notifications/: what other domains and the doors use of it.
export type { NotificationRepository } from './notification-repository.js';
export { wantsLoginAlerts } from './preferences.js';
export { inboxQuery, markReadBody } from './schemas.js';
export type { NotificationService } from './service.js';
export { notificationViewSchema } from './types.js';
export type { NotificationView } from './types.js';
