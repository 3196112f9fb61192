// Every cron job of the service. The scheduler refuses to start if one has a bad expression.
import type { ScheduledJob } from './scheduled-job.js';
import { statsRollupJob } from './stats-rollup.js';
import { campaignCompletionJob } from './campaign-completion.js';
import { databaseAnalyzeJob } from './database-analyze.js';
import { mediaRemovalJob } from './media-removal.js';
import { sessionTimeoutJob } from './session-timeout.js';
import { notificationRetentionJob } from './notification-retention.js';
import { savedSearchSweepJob } from './saved-search-matching.js';
import { savedSearchDigestJob } from './saved-search-digest.js';
import { resumableExpiryJob } from './resumable-expiry.js';
import { viewViewersPurgeJob } from './view-viewers-purge.js';

export const scheduledJobs: ScheduledJob[] = [
  statsRollupJob,
  campaignCompletionJob,
  databaseAnalyzeJob,
  mediaRemovalJob,
  sessionTimeoutJob,
  notificationRetentionJob,
  savedSearchSweepJob,
  savedSearchDigestJob,
  resumableExpiryJob,
  viewViewersPurgeJob,
];
