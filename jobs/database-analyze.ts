// Refreshes the planner's statistics every hour. The listing queries choose between an ordered
// index walk and a trigram or array index by their row estimates (docs/content.md); embedded
// PGlite has no autovacuum, so without this a table that grows keeps the estimates of when it was
// small. On a server autovacuum does it too; an extra ANALYZE costs little.
import type { ScheduledJob } from './scheduled-job.js';

export const databaseAnalyzeJob: ScheduledJob<'maintenance'> = {
  name: 'database-analyze',
  cron: '35 * * * *',
  uses: ['maintenance'],
  run: async ({ services }) => {
    await services.maintenance.refreshPlannerStatistics();
  },
};
