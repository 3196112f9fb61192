// Keeps the inbox bounded: notifications older than 90 days and finished Web Push rows older than
// a week are deleted. Daily, on one node; catching up is the same work.
import type { ScheduledJob } from './scheduled-job.js';

export const notificationRetentionJob: ScheduledJob<'notifications'> = {
  name: 'notification-retention',
  cron: '17 3 * * *',
  uses: ['notifications'],
  run: async ({ app, services }) => {
    const deleted = await services.notifications.prune();
    if (deleted) app.log.info({ count: deleted }, 'old notifications deleted');
  },
};
