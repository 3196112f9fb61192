// The daily digest of `daily` saved searches (CONTRACT §16): one `saved_search.match`
// notification per search with matches not told yet. At 01:00 UTC (08:00 in Vietnam); a node that
// starts after a missed tick runs it at once (the scheduler's catch-up), and each match is told
// once whatever the number of runs (src/saved-searches/matcher.ts).
import type { ScheduledJob } from './scheduled-job.js';

export const savedSearchDigestJob: ScheduledJob<'savedSearchMatcher'> = {
  name: 'saved-search-digest',
  cron: '0 1 * * *',
  uses: ['savedSearchMatcher'],
  run: async ({ app, services }) => {
    const sent = await services.savedSearchMatcher.sendDailyDigests();
    if (sent > 0) app.log.info({ sent }, 'saved-search digests sent');
  },
};
