// {auth_api} = /auth/api/v1 (SPEC §4.1).
import { z } from 'zod';
import { defineRoute, routeModule } from '../route.js';
import { loginBody, phoneBody, refreshBody, registerBody, sessionHeaders, userAgentHeader, verifyOtpBody } from '../../src/auth/index.js';
import {
  avatarHeaders,
  changePasswordBody,
  confirmForgotPasswordBody,
  followHeaders,
  optionalFollowHeaders,
  profileQuery,
  updateProfileBody,
  userIdParams,
} from '../../src/auth/index.js';
import {
  avatarSchema,
  codeSentSchema,
  followSchema,
  loginSchema,
  messageDataSchema,
  profileSchema,
  refreshedSchema,
  registeredSchema,
} from '../../src/auth/index.js';
import { deleteAccountBody, deletionScheduledSchema, exportIdParams, exportViewSchema } from '../../src/leaving/index.js';
import { blockRecordSchema, blockedListQuery, blockedListSchema, unblockedSchema } from '../../src/blocks/index.js';

const base = '/auth/api/v1';
const tag = 'auth';

export const authRoutes = routeModule(
  ['accountDeletion', 'accounts', 'avatars', 'blocks', 'dataExports', 'follows', 'passwords', 'profiles'],
  (app, services) => {
    const { passwords, follows, profiles, avatars, blocks } = services;
    // Files up to twice the image limit are read and answered 400 (SPEC: "400 type or size");
    // beyond that the multipart reader stops early with 413.
    const avatarReadLimit = app.config.MAX_IMAGE_BYTES * 2;

    return [
      defineRoute({
        method: 'POST',
        path: `${base}/register`,
        tag,
        auth: 'public',
        rateLimits: ['auth'],
        rateLimitKey: 'ip',
        summary: 'Register an account; a verification code is sent by SMS',
        body: registerBody,
        responseData: registeredSchema,
        successStatus: 201,
        errorStatuses: [400, 429, 500],
        handler: async ({ body }) => ({
          status: 201,
          message: 'User registered; verify the phone number with the code sent by SMS',
          data: await services.accounts.register(body),
        }),
      }),
      defineRoute({
        method: 'POST',
        path: `${base}/send-otp`,
        tag,
        auth: 'public',
        rateLimits: ['auth'],
        rateLimitKey: 'ip',
        summary: 'Send a phone verification code',
        body: phoneBody,
        responseData: codeSentSchema,
        errorStatuses: [400, 404, 429, 500],
        handler: async ({ body }) => ({ message: 'Code sent', data: { CodeDeliveryDetails: await services.accounts.sendOtp(body.phone_number) } }),
      }),
      defineRoute({
        method: 'POST',
        path: `${base}/verify-otp`,
        tag,
        auth: 'public',
        rateLimits: ['auth'],
        rateLimitKey: 'ip',
        summary: 'Verify the phone number with a 6-digit code',
        body: verifyOtpBody,
        responseData: messageDataSchema,
        errorStatuses: [400, 404, 429, 500],
        handler: async ({ body }) => {
          await services.accounts.verifyPhone(body.phone_number, body.otp);
          return { message: 'Account verified', data: { message: 'Account verified' } };
        },
      }),
      defineRoute({
        method: 'POST',
        path: `${base}/login`,
        tag,
        auth: 'public',
        rateLimits: ['auth'],
        rateLimitKey: 'ip',
        summary: 'Log in with phone number and password (and two_factor_code when two-factor is on)',
        body: loginBody,
        headers: userAgentHeader,
        responseData: loginSchema,
        errorStatuses: [400, 401, 403, 429, 500],
        handler: async ({ body, headers, ip }) => ({ message: 'Logged in', data: await services.accounts.login(body, headers['user-agent'], ip) }),
      }),
      defineRoute({
        method: 'POST',
        path: `${base}/refresh-token`,
        tag,
        auth: 'public',
        rateLimits: ['auth'],
        rateLimitKey: 'ip',
        summary: 'New access token from the refresh token (headers X-User-Username, X-Session-Id)',
        body: refreshBody,
        headers: sessionHeaders,
        responseData: refreshedSchema,
        errorStatuses: [400, 401, 429, 500],
        handler: async ({ body, headers }) => ({
          message: 'Token refreshed',
          data: await services.accounts.refresh(headers['x-session-id'], headers['x-user-username'], body.refresh_token),
        }),
      }),
      defineRoute({
        method: 'POST',
        path: `${base}/logout`,
        tag,
        auth: 'user',
        summary: 'End the current session (headers X-User-Username, X-Session-Id)',
        body: z.unknown(),
        headers: sessionHeaders,
        responseData: messageDataSchema,
        errorStatuses: [400, 401, 500],
        handler: async ({ caller, headers }) => {
          await services.accounts.logout(caller, headers['x-session-id'], headers['x-user-username']);
          return { message: 'Logged out', data: { message: 'Logged out' } };
        },
      }),
      defineRoute({
        method: 'POST',
        path: `${base}/forgot-password`,
        tag,
        auth: 'public',
        rateLimits: ['auth'],
        rateLimitKey: 'ip',
        summary: 'Send a password reset code by SMS',
        body: phoneBody,
        responseData: codeSentSchema,
        errorStatuses: [400, 404, 429, 500],
        handler: async ({ body }) => ({
          message: 'Password reset code sent',
          data: { CodeDeliveryDetails: await passwords.forgotPassword(body.phone_number) },
        }),
      }),
      defineRoute({
        method: 'POST',
        path: `${base}/confirm-forgot-password`,
        tag,
        auth: 'public',
        rateLimits: ['auth'],
        rateLimitKey: 'ip',
        summary: 'Set a new password with the reset code; ends every session of the user',
        body: confirmForgotPasswordBody,
        responseData: messageDataSchema,
        errorStatuses: [400, 404, 429, 500],
        handler: async ({ body }) => {
          await passwords.confirmForgotPassword(body.phone_number, body.confirmation_code, body.new_password);
          return { message: 'Password reset', data: { message: 'Password reset; log in with the new password' } };
        },
      }),
      defineRoute({
        method: 'GET',
        path: `${base}/user/me`,
        tag,
        auth: 'user',
        permission: 'read:profile',
        summary: "The caller's profile, or another user's public profile and statistics (query user_id)",
        query: profileQuery,
        responseData: profileSchema,
        errorStatuses: [400, 401, 403, 404, 500],
        handler: async ({ caller, query }) => ({ message: 'Profile', data: await profiles.profileAnswer(caller.userId, query.user_id) }),
      }),
      defineRoute({
        method: 'PUT',
        path: `${base}/user/me`,
        tag,
        auth: 'user',
        permission: 'update:profile',
        summary: 'Update given_name, family_name and/or email',
        body: updateProfileBody,
        responseData: messageDataSchema,
        errorStatuses: [400, 401, 403, 500],
        handler: async ({ caller, body }) => {
          await profiles.updateProfile(caller.userId, body);
          return { message: 'Profile updated', data: { message: 'Profile updated' } };
        },
      }),
      defineRoute({
        method: 'DELETE',
        path: `${base}/user/me`,
        tag,
        auth: 'user',
        rateLimits: ['auth'],
        summary:
          'Delete the account (CONTRACT §22): sessions end at once everywhere, the number is free again, the profile and content leave at once; the rest is erased within the hour',
        body: deleteAccountBody,
        successStatus: 202,
        responseData: deletionScheduledSchema,
        errorStatuses: [400, 401, 404, 409, 429, 500, 503],
        handler: async ({ caller, body }) => ({
          status: 202,
          message: 'Account deleted; personal data is erased by the time given',
          data: await services.accountDeletion.deleteAccount(caller.userId, body),
        }),
      }),
      defineRoute({
        method: 'POST',
        path: `${base}/user/export`,
        tag,
        auth: 'user',
        summary: "Ask for a copy of all one's data (CONTRACT §22): a ZIP of JSON files, made by a job; one a day (429 after)",
        successStatus: 202,
        responseData: exportViewSchema,
        errorStatuses: [401, 429, 500],
        handler: async ({ caller }) => ({ status: 202, message: 'Export requested', data: await services.dataExports.request(caller.userId) }),
      }),
      defineRoute({
        method: 'GET',
        path: `${base}/user/export/:exportId`,
        tag,
        auth: 'user',
        summary: "One of the caller's exports: pending, ready (with its download url until expires_at) or expired; another user's: 404",
        params: exportIdParams,
        responseData: exportViewSchema,
        errorStatuses: [400, 401, 404, 500],
        handler: async ({ caller, params }) => ({ message: 'Export', data: await services.dataExports.status(caller.userId, params.exportId) }),
      }),
      defineRoute({
        method: 'PUT',
        path: `${base}/user/avatar`,
        tag,
        auth: 'user',
        permission: 'update:profile',
        rateLimits: ['uploads'],
        summary: 'Replace the avatar (multipart field avatar: jpeg, png, bmp or webp); headers x-user-id, x-user-username',
        multipart: { maxFileBytes: avatarReadLimit, maxFiles: 1, fileFields: ['avatar'] },
        headers: avatarHeaders,
        responseData: avatarSchema,
        errorStatuses: [400, 401, 403, 413, 429, 500, 507],
        handler: async ({ caller, headers, files }) => {
          const claimed = { userId: headers['x-user-id'], username: headers['x-user-username'] };
          const picture = await avatars.setAvatar(
            caller,
            claimed,
            files.find((f) => f.field === 'avatar'),
          );
          return { message: 'Avatar updated', data: { picture } };
        },
      }),
      defineRoute({
        method: 'POST',
        path: `${base}/user/change_password`,
        tag,
        auth: 'user',
        permission: 'update:profile',
        rateLimits: ['auth'],
        summary: 'Change the password (old_password, new_password); ends the other sessions',
        body: changePasswordBody,
        responseData: messageDataSchema,
        errorStatuses: [400, 401, 403, 429, 500],
        handler: async ({ caller, body }) => {
          await passwords.changePassword(caller, body.old_password, body.new_password);
          return { message: 'Password changed', data: { message: 'Password changed; other sessions were ended' } };
        },
      }),
      defineRoute({
        method: 'POST',
        path: `${base}/users/:userId/follow`,
        tag,
        auth: 'user',
        permission: 'create:follow',
        summary: 'Follow a user (header X-User-ID = the caller)',
        params: userIdParams,
        headers: followHeaders,
        responseData: followSchema,
        errorStatuses: [400, 401, 403, 404, 429, 500],
        handler: async ({ caller, headers, params }) => ({ message: 'Followed', data: await follows.follow(caller, headers['x-user-id'], params.userId) }),
      }),
      defineRoute({
        method: 'DELETE',
        path: `${base}/users/:userId/follow`,
        tag,
        auth: 'user',
        permission: 'create:follow',
        summary: 'Unfollow a user (X-User-ID optional; when sent it must be the caller)',
        params: userIdParams,
        headers: optionalFollowHeaders,
        responseData: messageDataSchema,
        errorStatuses: [400, 401, 403, 404, 429, 500],
        handler: async ({ caller, headers, params }) => {
          await follows.unfollow(caller, headers['x-user-id'], params.userId);
          return { message: 'Unfollowed', data: { message: 'Unfollowed' } };
        },
      }),
      defineRoute({
        method: 'POST',
        path: `${base}/users/:userId/block`,
        tag,
        auth: 'user',
        rateLimits: ['blocks'],
        summary: 'Block a user (201; again: 200 with the same record). Follows between the two end; the blocked user is not told',
        params: userIdParams,
        body: z.unknown(),
        responseData: blockRecordSchema,
        successStatus: 201,
        errorStatuses: [400, 401, 404, 409, 429, 500],
        handler: async ({ caller, params }) => {
          const { record, created } = await blocks.block(caller, params.userId);
          return created ? { status: 201, message: 'Blocked', data: record } : { status: 200, message: 'Already blocked', data: record };
        },
      }),
      defineRoute({
        method: 'DELETE',
        path: `${base}/users/:userId/block`,
        tag,
        auth: 'user',
        rateLimits: ['blocks'],
        summary: 'Lift a block (200 also when there was none)',
        params: userIdParams,
        responseData: unblockedSchema,
        errorStatuses: [400, 401, 429, 500],
        handler: async ({ caller, params }) => ({ message: 'Unblocked', data: await blocks.unblock(caller, params.userId) }),
      }),
      defineRoute({
        method: 'GET',
        path: `${base}/users/blocked`,
        tag,
        auth: 'user',
        summary: "The caller's blocked users, most recently blocked first (cursor paging)",
        query: blockedListQuery,
        responseData: blockedListSchema,
        errorStatuses: [400, 401, 500],
        handler: async ({ caller, query }) => ({ message: 'Blocked users', data: await blocks.list(caller, query) }),
      }),
    ];
  },
);
