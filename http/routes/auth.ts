// {auth_api} = /auth/api/v1 (SPEC §4.1).
import { z } from 'zod';
import { defineRoute, type RouteModule } from '../route.js';
import { parseHeaders } from '../headers.js';
import {
  loginBody, phoneBody, refreshBody, registerBody, sessionHeaders, verifyOtpBody,
} from '../../src/auth/schemas.js';

const base = '/auth/api/v1';
const tag = 'auth';

export const authRoutes: RouteModule = (_app, core) => [
  defineRoute({
    method: 'POST', path: `${base}/register`, tag, auth: 'public', rateLimits: ['auth'], rateLimitKey: 'ip',
    summary: 'Register an account; a verification code is sent by SMS',
    body: registerBody, successStatus: 201, errorStatuses: [400, 429, 500],
    handler: async ({ body }) => ({ status: 201, message: 'User registered; verify the phone number with the code sent by SMS', data: await core.accounts.register(body) }),
  }),
  defineRoute({
    method: 'POST', path: `${base}/send-otp`, tag, auth: 'public', rateLimits: ['auth'], rateLimitKey: 'ip',
    summary: 'Send a phone verification code', body: phoneBody, errorStatuses: [400, 404, 429, 500],
    handler: async ({ body }) => ({ message: 'Code sent', data: { CodeDeliveryDetails: await core.accounts.sendOtp(body.phone_number) } }),
  }),
  defineRoute({
    method: 'POST', path: `${base}/verify-otp`, tag, auth: 'public', rateLimits: ['auth'], rateLimitKey: 'ip',
    summary: 'Verify the phone number with a 6-digit code', body: verifyOtpBody, errorStatuses: [400, 404, 429, 500],
    handler: async ({ body }) => {
      await core.accounts.verifyPhone(body.phone_number, body.otp);
      return { message: 'Account verified', data: { message: 'Account verified' } };
    },
  }),
  defineRoute({
    method: 'POST', path: `${base}/login`, tag, auth: 'public', rateLimits: ['auth'], rateLimitKey: 'ip',
    summary: 'Log in with phone number and password (and two_factor_code when two-factor is on)',
    body: loginBody, errorStatuses: [400, 401, 429, 500],
    handler: async ({ body, headers, ip }) => ({ message: 'Logged in', data: await core.accounts.login(body, headers['user-agent'] ?? '', ip) }),
  }),
  defineRoute({
    method: 'POST', path: `${base}/refresh-token`, tag, auth: 'public', rateLimits: ['auth'], rateLimitKey: 'ip',
    summary: 'New access token from the refresh token (headers X-User-Username, X-Session-Id)',
    body: refreshBody, errorStatuses: [400, 401, 429, 500],
    handler: async ({ body, headers }) => {
      const h = parseHeaders(sessionHeaders, headers);
      return { message: 'Token refreshed', data: await core.accounts.refresh(h['x-session-id'], h['x-user-username'], body.refresh_token) };
    },
  }),
  defineRoute({
    method: 'POST', path: `${base}/logout`, tag, auth: 'user',
    summary: 'End the current session (headers X-User-Username, X-Session-Id)',
    body: z.unknown(), errorStatuses: [400, 401, 500],
    handler: async ({ caller, headers }) => {
      const h = parseHeaders(sessionHeaders, headers);
      await core.accounts.logout(caller, h['x-session-id'], h['x-user-username']);
      return { message: 'Logged out', data: { message: 'Logged out' } };
    },
  }),
];
