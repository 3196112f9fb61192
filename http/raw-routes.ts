// Routes served on uWS directly rather than through the JSON route table: media files (which
// need streaming, byte ranges and cache headers) and the OpenAPI document.
import type { TemplatedApp } from 'uWebSockets.js';
import type { AppContext } from '../src/context.js';
import type { AnyRoute } from './route.js';
import { registerMediaRoutes } from './media.js';
import { registerOpenApiRoute } from './openapi.js';

export function registerRawRoutes(uws: TemplatedApp, app: AppContext, routes: AnyRoute[]): void {
  registerMediaRoutes(uws, app);
  registerOpenApiRoute(uws, app, routes);
}
