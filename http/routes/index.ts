// Every route module of the service. Each service root has its own file(s).
import type { RouteModule } from '../route.js';
import { authRoutes } from './auth.js';

export const routeModules: RouteModule[] = [authRoutes];
