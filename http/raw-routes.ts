// Routes served on uWS directly rather than through the JSON route table: media files (which
// need streaming, byte ranges and cache headers) and the OpenAPI document.
import type { TemplatedApp } from 'uWebSockets.js';
import type { AppContext } from '../src/context.js';
import type { AnyRoute } from './route.js';

export function registerRawRoutes(_uws: TemplatedApp, _app: AppContext, _routes: AnyRoute[]): void {
  // Media and OpenAPI handlers are registered here by their modules.
}
