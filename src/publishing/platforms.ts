// The external video platforms a user can link and publish to.
import type { Config } from '../config.js';

export const PLATFORMS = ['tiktok', 'youtube'] as const;
export type Platform = (typeof PLATFORMS)[number];

export const PLATFORM_NAMES: Record<Platform, string> = { tiktok: 'TikTok', youtube: 'YouTube' };

/** The prefix of the built-in client credentials (src/config.ts), which only the local stand-ins accept. */
const SANDBOX_PREFIX = 'sandbox-';

/** Each platform's client key/id and secret, as configured. */
const credentials = (
  config: Pick<Config, 'TIKTOK_CLIENT_KEY' | 'TIKTOK_CLIENT_SECRET' | 'YOUTUBE_CLIENT_ID' | 'YOUTUBE_CLIENT_SECRET'>,
): Record<Platform, string[]> => ({
  tiktok: [config.TIKTOK_CLIENT_KEY, config.TIKTOK_CLIENT_SECRET],
  youtube: [config.YOUTUBE_CLIENT_ID, config.YOUTUBE_CLIENT_SECRET],
});

/**
 * The platforms publishing is switched off for: in production (NODE_ENV=production), each whose
 * client key/id or secret is still a built-in `sandbox-*` value (unset). Elsewhere the sandbox
 * values stay, for the local stand-ins of development and the tests (docs/operations.md).
 */
export function platformsSwitchedOff(
  config: Pick<Config, 'NODE_ENV' | 'TIKTOK_CLIENT_KEY' | 'TIKTOK_CLIENT_SECRET' | 'YOUTUBE_CLIENT_ID' | 'YOUTUBE_CLIENT_SECRET'>,
): Platform[] {
  if (config.NODE_ENV !== 'production') return [];
  const all = credentials(config);
  return PLATFORMS.filter((p) => all[p].some((value) => value.startsWith(SANDBOX_PREFIX)));
}

/** What a platform's token endpoint gave us after a code exchange or a refresh. */
export interface PlatformTokens {
  accessToken: string;
  /** Null when the platform did not send one (Google omits it on refresh: keep the old one). */
  refreshToken: string | null;
  /** Seconds the access token lives, when the platform says. */
  expiresIn: number | null;
  refreshExpiresIn: number | null;
  scope: string;
  /** TikTok open_id; null for Google (the upload-only scope cannot read the channel). */
  externalId: string | null;
}
