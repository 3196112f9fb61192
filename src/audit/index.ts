// The public surface of src/audit/: what other domains and the doors use of it.
export type { AuditLog } from './audit-log.js';
export { auditPageView, auditQuery } from './schemas.js';
