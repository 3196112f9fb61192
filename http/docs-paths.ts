// Where the API's own documents and their pages are served (raw routes, outside the route table).
export const OPENAPI_PATH = '/api/v1/openapi.json';
export const ASYNCAPI_PATH = '/api/v1/asyncapi.json';
/** The REST reference page (Swagger UI). */
export const DOCS_PATH = '/docs';
/** The Socket.IO event reference page (AsyncAPI). */
export const EVENTS_DOCS_PATH = '/docs/events';
/** The renderers' files (an allow-list, served from their packages). */
export const DOCS_ASSETS_PATH = '/docs/assets';
