// Routes served on uWS directly rather than through the JSON route table: media files (which
// need streaming, byte ranges and cache headers), resumable uploads (the tus protocol, its own
// headers and streamed bodies), the OpenAPI and AsyncAPI documents and the docs pages. They answer through
// the same exchange as every route (request id, CORS, security headers, access log, drain).
import type { TemplatedApp } from 'uWebSockets.js';
import type { AppContext } from '../src/context.js';
import type { AnyRoute } from './route.js';
import type { Services } from '../src/services.js';
import type { CallerResolver } from '../src/auth/index.js';
import type { RateLimits } from './rate-limit.js';
import { registerResumableUploads } from './resumable.js';
import { registerMediaRoutes } from './media.js';
import { registerOpenApiRoute } from './openapi.js';
import { registerDocsPages } from './docs-pages.js';
import { registerExportDownload } from './export-download.js';
import type { OpenExchange } from './server.js';

/** The services of the composition root the raw routes use. */
export const RAW_ROUTE_SERVICES = ['resumableUploads', 'dataExports'] as const;
export type RawRouteServices = Pick<Services, (typeof RAW_ROUTE_SERVICES)[number]>;

/** What the raw routes are given besides the uWS app. */
export interface RawRouteDeps {
  app: AppContext;
  /** The services these routes use, and no other. */
  services: RawRouteServices;
  callers: CallerResolver;
  rateLimits: RateLimits;
  routes: AnyRoute[];
  openExchange: OpenExchange;
  /** The AsyncAPI document of the realtime door, for its base URL (given by service.ts, so this door does not import the other). */
  asyncApiDocument: (baseUrl: string) => unknown;
}

export function registerRawRoutes(uws: TemplatedApp, deps: RawRouteDeps): void {
  const { app, routes, openExchange } = deps;
  registerMediaRoutes(uws, app, openExchange);
  registerResumableUploads(uws, deps);
  registerExportDownload(uws, app, deps.services, deps.callers, openExchange);
  registerOpenApiRoute(uws, app, routes, openExchange);
  registerDocsPages(uws, app, openExchange, deps.asyncApiDocument);
}
