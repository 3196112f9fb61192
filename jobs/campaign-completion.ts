// Placeholder: completes campaigns whose duration has ended (campaigns issue).
import type { ScheduledJob } from './scheduled-job.js';

export const campaignCompletionJob: ScheduledJob = {
  name: 'campaign-completion',
  cron: '* * * * *',
  run: async () => undefined,
};
