// How a user appears next to what they wrote (comments, reactions, chat): display name and
// avatar URL, from the columns of the users table.
import type { Config } from '../config.js';
import { mediaUrl } from './media-url.js';

interface PersonColumns {
  username: string;
  given_name: string;
  family_name: string;
  picture?: string | null;
}

/** "Given Family", either left out when empty (the name profiles and tokens show). */
export const fullName = (given: string, family: string): string => [given, family].filter(Boolean).join(' ');

/** "Given Family", or the username when both are empty. */
export function displayName(p: PersonColumns): string {
  const full = [p.given_name, p.family_name]
    .map((s) => (s ?? '').trim())
    .filter(Boolean)
    .join(' ');
  return full || p.username;
}

/** The stored picture as a URL: kept as is when already absolute, else a MEDIA_DIR path. */
export function avatarUrl(config: Config, picture: string | null | undefined): string | null {
  if (!picture) return null;
  return /^https?:\/\//i.test(picture) ? picture : mediaUrl(config, picture);
}
