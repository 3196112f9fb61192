// The `login.new_device` notification a session opened from an unknown device brings
// (src/auth/sessions.ts says when a device is new): stored with the session when the user wants it.
import type { Queryable } from '../db/client.js';
import type { SettingsRepository } from '../settings/index.js';
import type { NewDeviceAlerts } from '../auth/index.js';
import { wantsLoginAlerts } from './preferences.js';
import type { NotificationService } from './service.js';

export class LoginAlerts implements NewDeviceAlerts {
  constructor(
    private readonly settings: SettingsRepository,
    private readonly notifications: NotificationService,
  ) {}

  async store(tx: Queryable, alert: { userId: string; sessionId: string; userAgent: string; ip: string }): Promise<boolean> {
    if (!(await wantsLoginAlerts(this.settings.in(tx), alert.userId))) return false;
    await this.notifications.notify(tx, {
      userId: alert.userId,
      type: 'login.new_device',
      actorId: null,
      subject: { type: 'session', id: alert.sessionId },
      data: { user_agent: alert.userAgent, ip: alert.ip },
    });
    return true;
  }

  deliverSoon(): void {
    this.notifications.deliverSoon();
  }
}
