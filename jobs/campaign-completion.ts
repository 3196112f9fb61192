// Completes campaigns whose duration has ended (CONTRACT §12). Runs every minute on one node;
// the work itself takes everything due up to the tick, so a missed tick or a restart is caught up
// on the next one.
import type { ScheduledJob } from './scheduled-job.js';

export const campaignCompletionJob: ScheduledJob<'campaigns'> = {
  name: 'campaign-completion',
  cron: '* * * * *',
  uses: ['campaigns'],
  run: async ({ app, services }, now) => {
    const completed = await services.campaigns.completeDue(now);
    if (completed.length) app.log.info({ count: completed.length }, 'campaigns completed');
  },
};
