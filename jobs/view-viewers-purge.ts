// Forgets who viewed what on closed days: the rows of distinct viewers per item and day
// (content_view_viewers) serve only the day's unique count, which is stored with the day. Daily,
// on one node; catching up is the same work.
import type { ScheduledJob } from './scheduled-job.js';

export const viewViewersPurgeJob: ScheduledJob<'views'> = {
  name: 'view-viewers-purge',
  cron: '23 3 * * *',
  uses: ['views'],
  run: async ({ app, services }) => {
    const deleted = await services.views.purgeClosedDays();
    if (deleted) app.log.info({ count: deleted }, 'viewers of closed days forgotten');
  },
};
