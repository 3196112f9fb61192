// The public surface of src/leaving/: what other domains and the doors use of it.
export { deleteAccountBody, deletionScheduledSchema, exportIdParams, exportViewSchema } from './schemas.js';
