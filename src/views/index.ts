// The public surface of src/views/: what other domains and the doors use of it.
export { analyticsData, analyticsQuery, playbackAnswer, playbackReportBody, viewsUpdate, watchPayload } from './schemas.js';
