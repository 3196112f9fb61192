// Placeholder: GET /api/v1/openapi.json built from the route table (foundation issue).
import type { TemplatedApp } from 'uWebSockets.js';
import type { AppContext } from '../src/context.js';
import type { AnyRoute } from './route.js';

export function registerOpenApiRoute(_uws: TemplatedApp, _app: AppContext, _routes: AnyRoute[]): void {}
