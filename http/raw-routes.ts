// Routes served on uWS directly rather than through the JSON route table: media files (which
// need streaming, byte ranges and cache headers), the OpenAPI and AsyncAPI documents and the docs pages. They answer through
// the same exchange as every route (request id, CORS, security headers, access log, drain).
import type { TemplatedApp } from 'uWebSockets.js';
import type { AppContext } from '../src/context.js';
import type { AnyRoute } from './route.js';
import { registerMediaRoutes } from './media.js';
import { registerOpenApiRoute } from './openapi.js';
import { registerDocsPages } from './docs-pages.js';
import type { OpenExchange } from './server.js';

export function registerRawRoutes(uws: TemplatedApp, app: AppContext, routes: AnyRoute[], openExchange: OpenExchange): void {
  registerMediaRoutes(uws, app, openExchange);
  registerOpenApiRoute(uws, app, routes, openExchange);
  registerDocsPages(uws, app, openExchange);
}
