// Request shapes of the publishing endpoints (SPEC §4.6; the parts SPEC leaves open are ours,
// see docs/publishing.md).
import { z } from 'zod';
import { TIKTOK_PRIVACY_LEVELS } from './tiktok-client.js';
import { YOUTUBE_PRIVACY } from './youtube-client.js';

const noAngleBrackets = (s: string) => !/[<>]/.test(s);

const tags = z.array(z.string().trim().min(1).max(100)).max(30).default([]);

export const tiktokUploadBody = z.object({
  id: z.uuid(),
  title: z.string().trim().min(1).max(150),
  description: z.string().trim().max(2000).default(''),
  tags,
  privacy_level: z.enum(TIKTOK_PRIVACY_LEVELS).default('SELF_ONLY'),
});
export type TikTokUploadBody = z.infer<typeof tiktokUploadBody>;

export const youtubeUploadBody = z.object({
  id: z.uuid(),
  // YouTube's limits: title 1-100 characters, description 5000 bytes, neither may hold < or >.
  title: z.string().trim().min(1).max(100).refine(noAngleBrackets, 'must not contain < or >'),
  description: z
    .string()
    .trim()
    .default('')
    .refine((s) => Buffer.byteLength(s, 'utf8') <= 5000, 'at most 5000 bytes')
    .refine(noAngleBrackets, 'must not contain < or >'),
  tags: tags.refine((list) => list.every(noAngleBrackets), 'must not contain < or >'),
  privacy_status: z.enum(YOUTUBE_PRIVACY).default('private'),
  category_id: z
    .string()
    .regex(/^\d{1,3}$/)
    .default('22'),
});
export type YouTubeUploadBody = z.infer<typeof youtubeUploadBody>;

// What the platform appends to our redirect URI: `code` on consent, `error` when the user refused.
export const callbackQuery = z.object({
  state: z.string().min(1).max(4096),
  code: z.string().min(1).max(4096).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(2000).optional(),
});
export type CallbackQuery = z.infer<typeof callbackQuery>;

// What the app hands back from the callback, in a request authenticated as the linking user.
export const linkBody = z.object({
  code: z.string().min(1).max(4096),
  state: z.string().min(1).max(4096),
});
export type LinkBody = z.infer<typeof linkBody>;

export const identityHeaders = z.object({ 'x-user-id': z.string().min(1, 'required').max(100) });
