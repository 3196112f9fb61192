// Saved-search matching (src/saved-searches/matcher.ts) from two doors:
// - the fast path: each node matches the items whose video it finished, on `video.completed`;
// - the sweep, every minute on one node: items left queued by a node that died between publishing
//   and matching (or by any other path to `completed`), matched late but exactly once.
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';
import type { ScheduledJob } from './scheduled-job.js';

export const savedSearchSweepJob: ScheduledJob<'savedSearchMatcher'> = {
  name: 'saved-search-sweep',
  cron: '* * * * *',
  uses: ['savedSearchMatcher'],
  run: async ({ app, services }) => {
    const taken = await services.savedSearchMatcher.sweep();
    if (taken > 0) app.log.info({ taken }, 'queued items matched against saved searches');
  },
};

export interface SavedSearchFastPath {
  /** Stops listening and waits for the matching in progress. */
  stop(): Promise<void>;
}

export function startSavedSearchMatching(app: AppContext, services: Pick<Services, 'savedSearchMatcher'>): SavedSearchFastPath {
  const inFlight = new Set<Promise<unknown>>();
  const unsubscribe = app.events.handle('video.completed', 'saved-search-matching', ({ contentId }) => {
    const run = services.savedSearchMatcher
      .matchPublished(contentId)
      .catch((err) => app.log.warn({ err, contentId }, 'saved-search matching failed; the sweep retries'))
      .finally(() => inFlight.delete(run));
    inFlight.add(run);
  });
  return {
    stop: async () => {
      unsubscribe();
      await Promise.allSettled([...inFlight]);
    },
  };
}
