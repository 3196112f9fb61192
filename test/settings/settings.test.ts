// GET/PUT /content/api/v1/user/settings over the real server.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';

const path = '/content/api/v1/user/settings';
const booted = useTestServer({ SCHEDULER_ENABLED: 'false' });
let server: TestServer;
let alice: TestUser;

beforeAll(async () => {
  server = booted.current;
  alice = await registerAndLogin(server);
});

describe('GET /user/settings', () => {
  it('should fail without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).get(path), 401);
  });

  it('answers the full tree with defaults for a user who never changed anything', async () => {
    const res = await alice.api.get(path);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(typeof res.body.message).toBe('string');
    const flags = { likes: true, comments: true, new_followers: true, mentions: true, tags: true };
    expect(res.body.data).toEqual({
      content: { desktop_notifications: true, browser_notifications: true, interactions: flags, in_app_notifications: flags },
      privacy: { two_factor_enabled: false, login_notifications: true, session_timeout: 60, show_presence: true },
      notifications: {
        browser_notifications: true,
        push_notifications: true,
        email_notifications: { marketing: false, updates: true, security: true },
      },
    });
  });
});

describe('PUT /user/settings', () => {
  it('should fail without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).put(path, { privacy: { session_timeout: 30 } }), 401);
  });

  it('should fail with a malformed JSON body', async () => {
    expectErrorEnvelope(await alice.api.request('PUT', path, { rawBody: '{"content":', headers: { 'content-type': 'application/json' } }), 400);
  });

  it('should fail without a body', async () => {
    expectErrorEnvelope(await alice.api.request('PUT', path), 400);
  });

  it('should fail with an update that changes nothing', async () => {
    expectErrorEnvelope(await alice.api.put(path, {}), 400, 'settings.error');
    expectErrorEnvelope(await alice.api.put(path, { content: { interactions: {} } }), 400, 'settings.error');
  });

  it('should fail with unknown paths, naming them', async () => {
    const top = expectErrorEnvelope(await alice.api.put(path, { colour: 'blue' }), 400);
    expect(top.details?.field).toBe('colour');
    const nested = expectErrorEnvelope(await alice.api.put(path, { content: { interactions: { shares: true } } }), 400);
    expect(nested.details?.field).toBe('content.interactions.shares');
  });

  it('should fail with wrong types, naming the path', async () => {
    const s = expectErrorEnvelope(await alice.api.put(path, { privacy: { login_notifications: 'yes' } }), 400);
    expect(s.details?.field).toBe('privacy.login_notifications');
    const n = expectErrorEnvelope(await alice.api.put(path, { content: { interactions: null } }), 400);
    expect(n.details?.field).toBe('content.interactions');
    const f = expectErrorEnvelope(await alice.api.put(path, { privacy: { session_timeout: 12.5 } }), 400);
    expect(f.details?.field).toBe('privacy.session_timeout');
    expectErrorEnvelope(await alice.api.put(path, { privacy: { session_timeout: '30' } }), 400);
    expectErrorEnvelope(await alice.api.put(path, []), 400);
  });

  it('should fail with a session_timeout outside 1..43200 minutes (CONTRACT §17)', async () => {
    expectErrorEnvelope(await alice.api.put(path, { privacy: { session_timeout: 0 } }), 400);
    expectErrorEnvelope(await alice.api.put(path, { privacy: { session_timeout: 43_201 } }), 400);
  });

  it('should fail with privacy.two_factor_enabled (read-only: changed through the toggle)', async () => {
    for (const value of [true, false]) {
      const err = expectErrorEnvelope(await alice.api.put(path, { privacy: { two_factor_enabled: value } }), 400, 'settings.error');
      expect(err.error_code).toBe('settings.error.read_only');
      expect(err.details?.field).toBe('privacy.two_factor_enabled');
    }
  });

  it('should fail as a whole when one path is read-only: nothing else of the request is applied', async () => {
    const before = (await alice.api.get(path)).body.data.privacy.login_notifications;
    expectErrorEnvelope(await alice.api.put(path, { privacy: { two_factor_enabled: true, login_notifications: !before } }), 400);
    expect((await alice.api.get(path)).body.data.privacy.login_notifications).toBe(before);
    expect((await alice.api.get(path)).body.data.privacy.two_factor_enabled).toBe(false);
  });

  it('answers the sent paths, dotted, and the time of the change', async () => {
    const user = await registerAndLogin(server);
    const res = await user.api.put(path, {
      content: { interactions: { likes: false } },
      privacy: { session_timeout: 30 },
      notifications: { email_notifications: { marketing: true } },
    });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(typeof res.body.message).toBe('string');
    expect(res.body.data.updated_fields).toEqual(['content.interactions.likes', 'privacy.session_timeout', 'notifications.email_notifications.marketing']);
    expect(new Date(res.body.data.timestamp).toISOString()).toBe(res.body.data.timestamp);
  });

  it('changes only the sent paths', async () => {
    const user = await registerAndLogin(server);
    await user.api.put(path, {
      content: { interactions: { likes: false } },
      privacy: { session_timeout: 30 },
      notifications: { email_notifications: { marketing: true } },
    });
    const after = (await user.api.get(path)).body.data;
    expect(after.content.interactions).toEqual({ likes: false, comments: true, new_followers: true, mentions: true, tags: true });
    expect(after.privacy.session_timeout).toBe(30);
    expect(after.notifications.email_notifications).toEqual({ marketing: true, updates: true, security: true });
  });

  it('keeps earlier changes when a later update sends another path', async () => {
    const user = await registerAndLogin(server);
    await user.api.put(path, { content: { interactions: { likes: false } }, privacy: { session_timeout: 30 } });
    const second = await user.api.put(path, { content: { desktop_notifications: false } });
    expect(second.body.data.updated_fields).toEqual(['content.desktop_notifications']);
    const again = (await user.api.get(path)).body.data;
    expect(again.content.desktop_notifications).toBe(false);
    expect(again.content.interactions.likes).toBe(false);
    expect(again.privacy.session_timeout).toBe(30);
  });

  it('accepts a session_timeout of 5 and of 43200 minutes', async () => {
    expect((await alice.api.put(path, { privacy: { session_timeout: 43_200 } })).status).toBe(200);
    expect((await alice.api.put(path, { privacy: { session_timeout: 5 } })).status).toBe(200);
  });

  it('keeps settings per user', async () => {
    const bob = await registerAndLogin(server);
    await bob.api.put(path, { privacy: { login_notifications: false } });
    expect((await bob.api.get(path)).body.data.privacy.login_notifications).toBe(false);
    expect((await alice.api.get(path)).body.data.privacy.login_notifications).toBe(true);
  });
});
