// Every route module of the service, one file (or more) per service root.
import type { RouteModule } from '../route.js';
import { authRoutes } from './auth.js';
import { authorizationRoutes } from './authorization.js';
import { contentRoutes } from './content.js';
import { viewRoutes } from './views.js';
import { fileRoutes } from './files.js';
import { snsRoutes } from './sns.js';
import { chatRoutes } from './chat.js';
import { presenceRoutes } from './presence.js';
import { settingsRoutes } from './settings.js';
import { publishingRoutes } from './publishing.js';
import { campaignRoutes } from './campaigns.js';
import { savedSearchRoutes } from './saved-searches.js';
import { notificationRoutes } from './notifications.js';
import { reportRoutes } from './reports.js';
import { moderationRoutes } from './moderation.js';

export const routeModules: RouteModule[] = [
  authRoutes, // /auth/api/v1
  authorizationRoutes, // /authorization/api/v1
  contentRoutes, // /content/api/v1 content, listings, feed; /api/v1/content/:id
  viewRoutes, // /content/api/v1/contents/:id views and analytics
  fileRoutes, // /file-processing/api/v1
  snsRoutes, // /sns/api/v1 comments
  chatRoutes, // /sns/api/v1/chat
  presenceRoutes, // /sns/api/v1/presence
  settingsRoutes, // /content/api/v1 settings, two-factor, sessions, statistics
  publishingRoutes, // /content/api/v1 tiktok, youtube
  campaignRoutes, // /api/v1 boost, campaigns, payments, targeting, balance
  savedSearchRoutes, // /content/api/v1/saved-searches
  notificationRoutes, // /sns/api/v1 notifications, push subscriptions
  reportRoutes, // /sns/api/v1/reports
  moderationRoutes, // /api/v1/moderation audit log (and §21's reports, queue, decisions)
];
