// The settings tree of SPEC §2.5: its defaults and the strict schema of a partial update.
import { z } from 'zod';

const SESSION_TIMEOUT_MIN = 1; // CONTRACT §17: 1-43200 minutes
const SESSION_TIMEOUT_MAX = 43_200; // 30 days, in minutes

const interactionFlags = { likes: true, comments: true, new_followers: true, mentions: true, tags: true };

/** Every setting and its value for a user who never changed it. */
export const DEFAULT_SETTINGS = {
  content: {
    desktop_notifications: true,
    browser_notifications: true,
    interactions: { ...interactionFlags },
    in_app_notifications: { ...interactionFlags },
  },
  privacy: {
    /** Read-only here: mirrors users.two_factor_enabled (changed through the 2fa toggle). */
    two_factor_enabled: false,
    login_notifications: true,
    /** Minutes of inactivity after which the session ends (its tokens answer 401, its sockets drop). */
    session_timeout: 60,
    /** Whether the people one chats with see one online and one's last_seen_at (CONTRACT §19). */
    show_presence: true,
  },
  notifications: {
    browser_notifications: true,
    push_notifications: true,
    email_notifications: { marketing: false, updates: true, security: true },
  },
};

export type SettingsTree = typeof DEFAULT_SETTINGS;

/** Paths that exist but cannot be changed with PUT /user/settings. */
export const READ_ONLY_PATHS = new Set(['privacy.two_factor_enabled']);

const flags = z
  .strictObject({
    likes: z.boolean(),
    comments: z.boolean(),
    new_followers: z.boolean(),
    mentions: z.boolean(),
    tags: z.boolean(),
  })
  .partial();

/** A partial tree: unknown keys and wrong types are refused (400 naming the path). */
export const settingsPatchBody = z
  .strictObject({
    content: z
      .strictObject({
        desktop_notifications: z.boolean(),
        browser_notifications: z.boolean(),
        interactions: flags,
        in_app_notifications: flags,
      })
      .partial(),
    privacy: z
      .strictObject({
        // Accepted by the schema only so the service can answer a precise "read-only" error.
        two_factor_enabled: z.unknown(),
        login_notifications: z.boolean(),
        session_timeout: z.number().int().min(SESSION_TIMEOUT_MIN).max(SESSION_TIMEOUT_MAX),
        show_presence: z.boolean(),
      })
      .partial(),
    notifications: z
      .strictObject({
        browser_notifications: z.boolean(),
        push_notifications: z.boolean(),
        email_notifications: z.strictObject({ marketing: z.boolean(), updates: z.boolean(), security: z.boolean() }).partial(),
      })
      .partial(),
  })
  .partial();

export type SettingsPatch = z.infer<typeof settingsPatchBody>;

/** Schema of the whole tree (for the OpenAPI document). */
export const settingsTreeSchema = z.object({
  content: z.object({
    desktop_notifications: z.boolean(),
    browser_notifications: z.boolean(),
    interactions: flags.required(),
    in_app_notifications: flags.required(),
  }),
  privacy: z.object({
    two_factor_enabled: z.boolean(),
    login_notifications: z.boolean(),
    session_timeout: z.number().int(),
    show_presence: z
      .boolean()
      .describe('Online state and last_seen_at shown to the people one chats with (default true); off: everyone reads online false, last_seen_at null'),
  }),
  notifications: z.object({
    browser_notifications: z.boolean(),
    push_notifications: z.boolean(),
    email_notifications: z.object({ marketing: z.boolean(), updates: z.boolean(), security: z.boolean() }),
  }),
});
