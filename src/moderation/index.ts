// The public surface of src/moderation/: what other domains and the doors use of it.
export { queuePage, queueQuery, reportBody, reportView, resolveBody, resolveView, restoreView, targetParams, userIdParams } from './report-schemas.js';
export type { ReportRepository } from './reports-repository.js';
