// Completes campaigns whose duration has ended (CONTRACT §12). Runs every minute on one node;
// the work itself takes everything due up to the tick, so a missed tick or a restart is caught up
// on the next one.
import { CampaignRepository } from '../src/campaigns/campaign-repository.js';
import type { ScheduledJob } from './scheduled-job.js';

export const campaignCompletionJob: ScheduledJob = {
  name: 'campaign-completion',
  cron: '* * * * *',
  run: async (app, now) => {
    // Scheduled jobs are handed the AppContext only (jobs/scheduled-job.ts): once they get the
    // services, this is `services.campaigns.completeDue(now)`, the same query.
    const completed = await new CampaignRepository(app.database).completeDue(now);
    if (completed.length) app.log.info({ count: completed.length }, 'campaigns completed');
  },
};
