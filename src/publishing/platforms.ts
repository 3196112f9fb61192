// The external video platforms a user can link and publish to.
export const PLATFORMS = ['tiktok', 'youtube'] as const;
export type Platform = (typeof PLATFORMS)[number];

export const PLATFORM_NAMES: Record<Platform, string> = { tiktok: 'TikTok', youtube: 'YouTube' };

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
