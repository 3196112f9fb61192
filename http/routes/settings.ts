// Placeholder: filled in by its issue.
import type { RouteModule } from '../route.js';

export const settingsRoutes: RouteModule = () => [];
