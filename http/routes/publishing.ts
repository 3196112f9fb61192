// {content_api} social publishing (SPEC §4.6): link TikTok / YouTube accounts through OAuth 2.0 with
// PKCE (the public callback only hands code and state to the app; the link completes in
// `POST /{platform}/link`, authenticated as the user who started it: CONTRACT §19), then publish a
// completed content item's original video to them. Decisions SPEC leaves open are in
// docs/publishing.md.
import { z } from 'zod';
import { defineRoute, type AnyRoute, routeModule } from '../route.js';
import { PLATFORM_NAMES, PLATFORMS, type Platform } from '../../src/publishing/index.js';
import { PublishingService } from '../../src/publishing/index.js';
import { callbackQuery, identityHeaders, linkBody, tiktokUploadBody, youtubeUploadBody } from '../../src/publishing/index.js';

const base = '/content/api/v1';
const tag = 'publishing';
const permission = 'publish:social';

const authData = z.object({ url: z.string(), expires_in: z.number() });
const callbackData = z.object({
  platform: z.enum(PLATFORMS),
  code: z.string().nullable(),
  state: z.string(),
  error: z.string().nullable(),
  error_description: z.string().nullable(),
});
const linkData = z.object({
  platform: z.enum(PLATFORMS),
  linked: z.boolean(),
  external_id: z.string().nullable(),
  scope: z.string(),
  expires_at: z.string().nullable(),
});
const linkedAccountsData = z.object({
  accounts: z.array(
    z.object({ platform: z.enum(PLATFORMS), external_id: z.string().nullable(), scope: z.string(), linked_at: z.string(), updated_at: z.string() }),
  ),
});
// The callback's answer carries a live authorization code: no cache or referrer may keep it.
const callbackHeaders = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

export const publishingRoutes = routeModule(['publishing'], (app, services) => {
  const { publishing } = services;

  const linkRoutes = (platform: Platform): AnyRoute[] => {
    const name = PLATFORM_NAMES[platform];
    return [
      defineRoute({
        method: 'GET',
        path: `${base}/${platform}/auth`,
        tag,
        auth: 'user',
        permission,
        summary: `${name} authorization URL (OAuth 2.0 with PKCE; the state is signed, single use, valid 10 minutes)`,
        responseData: authData,
        errorStatuses: [401, 403, 429, 500, 503],
        handler: async ({ caller }) => ({
          message: `Open the URL to link a ${name} account`,
          data: await publishing.authorizationUrl(caller.userId, platform),
        }),
      }),
      defineRoute({
        method: 'GET',
        path: `${base}/${platform}/callback`,
        tag,
        auth: 'public',
        summary: `${name} OAuth redirect target: links nothing, hands code and state (or the platform's error) to the app, which finishes with POST ${base}/${platform}/link`,
        query: callbackQuery,
        responseData: callbackData,
        errorStatuses: [400, 429],
        handler: async ({ query }) => ({ ...PublishingService.callbackResult(platform, query), headers: callbackHeaders }),
      }),
      defineRoute({
        method: 'POST',
        path: `${base}/${platform}/link`,
        tag,
        auth: 'user',
        permission,
        summary: `Finish linking a ${name} account: code and state from the callback, sent by the user who started the linking (another user's state: 403, left usable)`,
        body: linkBody,
        responseData: linkData,
        errorStatuses: [400, 401, 403, 429, 502, 503],
        handler: async ({ caller, body }) => ({ message: `${name} account linked`, data: await publishing.link(caller.userId, platform, body) }),
      }),
    ];
  };

  return [
    ...linkRoutes('tiktok'),
    ...linkRoutes('youtube'),
    defineRoute({
      method: 'POST',
      path: `${base}/tiktok/upload`,
      tag,
      auth: 'user',
      permission,
      rateLimits: ['uploads'],
      summary: 'Publish a completed content video to the linked TikTok account (direct post, file upload); header x-user-id required',
      body: tiktokUploadBody,
      responseData: z.object({ publication_id: z.string(), publish_id: z.string(), status: z.string() }),
      headers: identityHeaders,
      errorStatuses: [400, 401, 403, 404, 409, 429, 502, 503],
      handler: async ({ caller, headers, body }) => ({
        message: 'Video sent to TikTok',
        data: await publishing.publishToTikTok(caller, headers['x-user-id'], body),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: `${base}/youtube/upload`,
      tag,
      auth: 'user',
      permission,
      rateLimits: ['uploads'],
      summary: 'Publish a completed content video to the linked YouTube channel (resumable upload); header x-user-id required',
      body: youtubeUploadBody,
      responseData: z.object({ publication_id: z.string(), video_id: z.string(), url: z.string(), status: z.string() }),
      headers: identityHeaders,
      errorStatuses: [400, 401, 403, 404, 409, 429, 502, 503],
      handler: async ({ caller, headers, body }) => ({
        message: 'Video uploaded to YouTube',
        data: await publishing.publishToYouTube(caller, headers['x-user-id'], body),
      }),
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/social/accounts`,
      tag,
      auth: 'user',
      permission,
      summary: "The caller's linked platform accounts (never the tokens)",
      responseData: linkedAccountsData,
      errorStatuses: [401, 403, 429],
      handler: async ({ caller }) => ({ data: { accounts: await publishing.linkedAccounts(caller.userId) } }),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${base}/social/accounts/:platform`,
      tag,
      auth: 'user',
      permission,
      summary: 'Unlink a platform account (forgets its tokens)',
      params: z.object({ platform: z.enum(PLATFORMS) }),
      successStatus: 204,
      errorStatuses: [400, 401, 403, 404, 429],
      handler: async ({ caller, params }) => {
        await publishing.unlink(caller.userId, params.platform);
        return { status: 204, empty: true };
      },
    }),
  ];
});
