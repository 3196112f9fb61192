// SettingsService tested directly (test/helpers/domain.ts: its repositories over a fresh database,
// no HTTP server): the events a change publishes. A new privacy.session_timeout publishes
// `user.changed` (every node drops its cached session checks of the user, so the new timeout holds
// from the next request); a setting no cache reads publishes nothing (src/events.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { SettingsService } from '../../src/settings/service.js';
import { published, useTestDomain, type TestDomain } from '../helpers/domain.js';

const opened = useTestDomain();
let domain: TestDomain;
let settings: SettingsService;

beforeAll(() => {
  domain = opened.current;
  settings = new SettingsService(domain.app, domain.repositories.settings, domain.repositories.users);
});

describe('SettingsService.update events', () => {
  it('publishes user.changed for the user when privacy.session_timeout changes, and stores it', async () => {
    const user = await domain.createUser();
    const { result, events } = await published(domain, 'user.changed', () => settings.update(user.userId, { privacy: { session_timeout: 5 } }));
    expect(result.updated_fields).toEqual(['privacy.session_timeout']);
    expect(events).toEqual([{ userId: user.userId }]);
    expect((await settings.get(user.userId)).privacy.session_timeout).toBe(5);
  });

  it('publishes nothing for a setting no cache reads (a notification flag)', async () => {
    const user = await domain.createUser();
    const { events } = await published(domain, 'user.changed', () => settings.update(user.userId, { notifications: { push_notifications: false } }));
    expect(events).toEqual([]);
    expect((await settings.get(user.userId)).notifications.push_notifications).toBe(false);
  });

  it('publishes nothing when the update is refused (a read-only path)', async () => {
    const user = await domain.createUser();
    const { events } = await published(domain, 'user.changed', () =>
      settings.update(user.userId, { privacy: { session_timeout: 5, two_factor_enabled: true } }).catch((err: unknown) => err),
    ).then(({ result, events }) => {
      expect(result).toMatchObject({ status: 400, code: 'settings.error.read_only' });
      return { events };
    });
    expect(events).toEqual([]);
    expect((await settings.get(user.userId)).privacy.session_timeout).toBe(60);
  });
});
