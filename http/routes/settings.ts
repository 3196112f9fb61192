// {content_api} = /content/api/v1 (SPEC §4.7): settings, two-factor toggle, sessions, statistics.
import { z } from 'zod';
import { defineRoute, routeModule } from '../route.js';
import { settingsPatchBody, settingsTreeSchema } from '../../src/settings/index.js';
import { toggleTwoFactorBody } from '../../src/twofactor/index.js';
import { statsByDayData, statsByDayQuery } from '../../src/stats/index.js';

const base = '/content/api/v1';
const tag = 'settings';

const sessionView = z.object({
  session_id: z.string(),
  user_agent: z.string(),
  ip: z.string(),
  created_at: z.string(),
  last_seen_at: z.string(),
  current: z.boolean(),
});

export const settingsRoutes = routeModule(['sessions', 'settings', 'stats', 'twoFactor'], (_app, services) => {
  const { settings, stats } = services;
  return [
    defineRoute({
      method: 'GET',
      path: `${base}/user/settings`,
      tag,
      auth: 'user',
      permission: 'manage:settings',
      summary: "The caller's settings tree, defaults filled in",
      responseData: settingsTreeSchema,
      errorStatuses: [401, 403, 500],
      handler: async ({ caller }) => ({ message: 'Settings', data: await settings.get(caller.userId) }),
    }),
    defineRoute({
      method: 'PUT',
      path: `${base}/user/settings`,
      tag,
      auth: 'user',
      permission: 'manage:settings',
      summary: 'Change the sent settings paths only (privacy.two_factor_enabled is read-only here)',
      body: settingsPatchBody,
      errorStatuses: [400, 401, 403, 500],
      responseData: z.object({ updated_fields: z.array(z.string()), timestamp: z.string() }),
      handler: async ({ caller, body }) => ({ message: 'Settings updated', data: await settings.update(caller.userId, body) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${base}/auth/2fa/toggle`,
      tag,
      auth: 'user',
      permission: 'manage:settings',
      rateLimits: ['two_factor'],
      rateLimitKey: 'user',
      summary: 'Enable (current_password, phone_number) or disable (current_password, verification_code) two-factor',
      body: toggleTwoFactorBody,
      errorStatuses: [400, 401, 403, 409, 429, 500],
      responseData: z.object({
        two_factor_enabled: z.boolean(),
        backup_codes: z.array(z.string()).optional(),
        qr_code: z.string().optional(),
        otpauth_url: z.string().optional(),
        secret: z.string().optional(),
      }),
      handler: async ({ caller, body }) => services.twoFactor.toggle(caller.userId, body),
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/user/sessions`,
      tag,
      auth: 'user',
      permission: 'manage:settings',
      summary: "The caller's active sessions (current marks the one making this request)",
      responseData: z.object({ sessions: z.array(sessionView) }),
      errorStatuses: [401, 403, 500],
      handler: async ({ caller }) => ({ message: 'Active sessions', data: { sessions: await services.sessions.list(caller.userId, caller.sessionId) } }),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${base}/user/sessions/others`,
      tag,
      auth: 'user',
      permission: 'manage:settings',
      summary: 'End every session of the caller except the current one',
      responseData: z.object({ revoked_count: z.number().int() }),
      errorStatuses: [401, 403, 500],
      handler: async ({ caller }) => ({
        message: 'Other sessions ended',
        data: { revoked_count: await services.sessions.revokeAllExcept(caller.userId, caller.sessionId) },
      }),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${base}/user/sessions/:session_id`,
      tag,
      auth: 'user',
      permission: 'manage:settings',
      summary: "End one of the caller's sessions (the current one too)",
      params: z.object({ session_id: z.uuid('must be a session id') }),
      responseData: z.object({ session_id: z.string(), current: z.boolean() }),
      errorStatuses: [400, 401, 403, 404, 500],
      handler: async ({ caller, params }) => ({
        message: 'Session ended',
        data: await services.sessions.endOwn(caller.userId, params.session_id, caller.sessionId),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/stats/by-day`,
      tag,
      auth: 'user',
      permission: 'read:stats',
      summary: "Per-day statistics (UTC days, both ends included, at most 366); another user's need read:any_stats",
      query: statsByDayQuery,
      responseData: statsByDayData,
      errorStatuses: [400, 401, 403, 404, 500],
      handler: async ({ caller, query }) => ({
        message: 'Daily statistics',
        data: await stats.byDay(caller, query.user_id, query.start_date, query.end_date),
      }),
    }),
  ];
});
