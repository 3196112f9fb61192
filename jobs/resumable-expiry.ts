// Removes resumable uploads that expired unfinished (RESUMABLE_UPLOAD_TTL seconds after their
// creation, CONTRACT §24): their bytes on the shared storage, then their rows; and any upload file
// left without its row. Every minute, on one node (the scheduler's lock).
import type { ScheduledJob } from './scheduled-job.js';

export const resumableExpiryJob: ScheduledJob<'resumableUploads'> = {
  name: 'resumable-expiry',
  cron: '* * * * *',
  uses: ['resumableUploads'],
  run: async ({ app, services }) => {
    const removed = await services.resumableUploads.sweep();
    if (removed > 0) app.log.info({ removed }, 'expired resumable uploads removed');
  },
};
