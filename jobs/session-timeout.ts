// Ends sessions idle past their user's privacy.session_timeout (CONTRACT §17) even when no
// request comes to find out: their sockets are dropped (session.revoked). Every minute, on one node.
import type { ScheduledJob } from './scheduled-job.js';

export const sessionTimeoutJob: ScheduledJob<'sessions'> = {
  name: 'session-timeout',
  cron: '* * * * *',
  uses: ['sessions'],
  run: async ({ app, services }) => {
    const ended = await services.sessions.expireIdle();
    if (ended) app.log.info({ count: ended }, 'idle sessions ended');
  },
};
