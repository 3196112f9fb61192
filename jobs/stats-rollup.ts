// Rolls finished UTC days up into daily_stats (see src/stats/rollup.ts). Hourly, so a node that
// was down at midnight catches up within the hour; each run continues after the watermark.
import type { ScheduledJob } from './scheduled-job.js';

export const statsRollupJob: ScheduledJob<'statsRollup'> = {
  name: 'stats-rollup',
  cron: '5 * * * *',
  uses: ['statsRollup'],
  run: async ({ app, services }, now) => {
    const rolled = await services.statsRollup.rollUpFinishedDays(now);
    if (rolled) app.log.info(rolled, 'daily statistics rolled up');
  },
};
