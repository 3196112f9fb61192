// Completes campaigns whose duration has ended (CONTRACT §12). Runs every minute on one node;
// the work itself (src/campaigns/completion.ts) takes everything due up to the tick, so a missed
// tick or a restart is caught up on the next one.
import { completeDueCampaigns } from '../src/campaigns/completion.js';
import type { ScheduledJob } from './scheduled-job.js';

export const campaignCompletionJob: ScheduledJob = {
  name: 'campaign-completion',
  cron: '* * * * *',
  run: async (app, now) => {
    const completed = await completeDueCampaigns(app.database, now);
    if (completed.length) app.log.info({ count: completed.length }, 'campaigns completed');
  },
};
