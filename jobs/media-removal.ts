// Finishes the withdrawal of deleted content's media (src/media/media-removal.ts) that the delete
// request could not finish: its node died after the delete committed, or the file system refused.
// Every minute; the scheduler's start-up catch-up runs it at once on a node that starts after one.
import type { ScheduledJob } from './scheduled-job.js';

export const mediaRemovalJob: ScheduledJob<'mediaRemoval'> = {
  name: 'media-removal',
  cron: '* * * * *',
  uses: ['mediaRemoval'],
  run: async ({ app, services }) => {
    const removed = await services.mediaRemoval.sweep();
    if (removed > 0) app.log.info({ removed }, 'media of deleted content removed');
  },
};
