// Every route module of the service, one file (or more) per service root.
import type { RouteModule } from '../route.js';
import { authRoutes } from './auth.js';
import { authorizationRoutes } from './authorization.js';
import { contentRoutes } from './content.js';
import { fileRoutes } from './files.js';
import { snsRoutes } from './sns.js';
import { settingsRoutes } from './settings.js';
import { publishingRoutes } from './publishing.js';
import { campaignRoutes } from './campaigns.js';

export const routeModules: RouteModule[] = [
  authRoutes, // /auth/api/v1
  authorizationRoutes, // /authorization/api/v1
  contentRoutes, // /content/api/v1 content, listings, feed; /api/v1/content/:id
  fileRoutes, // /file-processing/api/v1
  snsRoutes, // /sns/api/v1
  settingsRoutes, // /content/api/v1 settings, two-factor, sessions, statistics
  publishingRoutes, // /content/api/v1 tiktok, youtube
  campaignRoutes, // /api/v1 boost, campaigns, payments, targeting, balance
];
