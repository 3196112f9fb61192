// Placeholder: media serving under /media (content and media issue).
import type { TemplatedApp } from 'uWebSockets.js';
import type { AppContext } from '../src/context.js';

export function registerMediaRoutes(_uws: TemplatedApp, _app: AppContext): void {}
