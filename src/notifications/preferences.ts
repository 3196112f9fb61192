// Which setting of SPEC §2.5 gates which notification type (CONTRACT §17). A type without a
// toggle is always stored. `tags` has no type yet: the service has no tagging of people.
import type { SettingsRepository } from '../settings/index.js';
import { DEFAULT_SETTINGS } from '../settings/index.js';
import type { NotificationType } from './types.js';

type InAppToggle = keyof typeof DEFAULT_SETTINGS.content.in_app_notifications;

export const IN_APP_TOGGLE: Partial<Record<NotificationType, InAppToggle>> = {
  follow: 'new_followers',
  comment: 'comments',
  reply: 'comments',
  reaction: 'likes',
  mention: 'mentions',
};

/** The user's boolean setting at `path` (dotted), or its default when they never changed it. */
async function flag(settings: SettingsRepository, userId: string, path: string, fallback: boolean): Promise<boolean> {
  const overrides = await settings.findOverrides(userId);
  const value = overrides?.[path];
  return typeof value === 'boolean' ? value : fallback;
}

/** Whether the user wants notifications of `type` in their inbox (and so on their sockets). */
export async function wantsInApp(settings: SettingsRepository, userId: string, type: NotificationType): Promise<boolean> {
  const toggle = IN_APP_TOGGLE[type];
  if (!toggle) return true;
  return flag(settings, userId, `content.in_app_notifications.${toggle}`, DEFAULT_SETTINGS.content.in_app_notifications[toggle]);
}

/** privacy.login_notifications: a login from a new user agent makes `login.new_device`. */
export function wantsLoginAlerts(settings: SettingsRepository, userId: string): Promise<boolean> {
  return flag(settings, userId, 'privacy.login_notifications', DEFAULT_SETTINGS.privacy.login_notifications);
}
