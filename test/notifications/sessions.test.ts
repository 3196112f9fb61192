// Settings of SPEC §2.5 that act on sessions (CONTRACT §17): privacy.login_notifications makes
// `login.new_device` (notification + SMS) for a user agent not used before; privacy.session_timeout
// ends an idle session: its tokens answer 401 and its sockets are disconnected.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, readOutbox, registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll, connect, disconnected } from '../realtime/socket-client.js';
import { sessionTimeoutJob } from '../../jobs/session-timeout.js';
import { inbox, listen, nextNotification, setSettings, settle } from './fixtures.js';

const booted = useTestServer();
let server: TestServer;
beforeAll(() => {
  server = booted.current;
});
afterEach(() => closeAll());
afterAll(() => closeAll());

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const PHONE_APP = 'RealEstateApp/3.2 (iPhone; iOS 17.5)';

async function loginWith(user: TestUser, userAgent: string): Promise<{ token: string; sessionId: string; refreshToken: string }> {
  const res = await new ApiClient(server.url).post(
    '/auth/api/v1/login',
    { phone_number: user.phone, password: user.password },
    { headers: { 'user-agent': userAgent } },
  );
  expect(res.status, res.text).toBe(200);
  return { token: res.body.data.AccessToken, sessionId: res.body.data.SessionId, refreshToken: res.body.data.RefreshToken };
}

const alerts = (user: TestUser) => readOutbox(server).filter((e) => e.to === user.phone && e.purpose === 'login-alert');
const newDeviceNotifications = async (user: TestUser) => (await inbox(user)).notifications.filter((n: any) => n.type === 'login.new_device');

describe('login from a new device (privacy.login_notifications)', () => {
  it('should notify and text the user when a user agent signs in for the first time, not when it comes back', async () => {
    const user = await registerAndLogin(server); // the first login ever: nothing to compare with
    expect(await newDeviceNotifications(user)).toEqual([]);
    const { socket } = await listen(server, user, 'websocket');
    const pushed = nextNotification(socket, (n) => n.type === 'login.new_device');
    const session = await loginWith(user, CHROME);
    const n = await pushed;
    expect(n).toMatchObject({ actor: null, subject: { type: 'session', id: session.sessionId }, data: { user_agent: CHROME } });
    const sms = alerts(user);
    expect(sms).toHaveLength(1);
    expect(sms[0].body).toContain(CHROME.slice(0, 80)); // the agent, cut to fit a text message
    // No secret of any kind in the text: no token, no code, no session id.
    expect(sms[0].code).toBeUndefined();
    for (const secret of [session.token, session.refreshToken, session.sessionId, user.password]) expect(sms[0].body).not.toContain(secret);

    await loginWith(user, CHROME);
    await settle();
    expect(await newDeviceNotifications(user)).toHaveLength(1);
    expect(alerts(user)).toHaveLength(1);
  });

  it('should say nothing when the setting is off', async () => {
    const user = await registerAndLogin(server);
    await setSettings(user, { privacy: { login_notifications: false } });
    await loginWith(user, PHONE_APP);
    await settle();
    expect(await newDeviceNotifications(user)).toEqual([]);
    expect(alerts(user)).toEqual([]);
  });
});

describe('idle sessions end (privacy.session_timeout)', () => {
  /**
   * Moves the session's last activity back, as if it had been idle that long. That is a write
   * behind the service's back: it is announced (user.changed), so the node's read model asks the
   * database about the user's sessions on the next request (docs/read-model.md).
   */
  const idleFor = async (user: { userId: string; sessionId: string }, minutes: number) => {
    await server.service.app.database.rows(sql`update sessions set last_seen_at = now() - make_interval(mins => ${minutes}) where id = ${user.sessionId}`);
    await server.service.app.events.publishAndWait('user.changed', { userId: user.userId });
  };

  // A request on an idle session is refused by the node's exact check (the freshest activity of
  // every node, not only last_seen_at): that is test/accounts/idle-timeout.test.ts, in real time.
  // Here last_seen_at is moved back for the sweep, which reads only the database.

  it('should end idle sessions with no request coming (the scheduled sweep), sockets included', { timeout: 30_000 }, async () => {
    const user = await registerAndLogin(server);
    await setSettings(user, { privacy: { session_timeout: 5 } });
    const socket = await connect(server.url, '/notifications', user.token, 'websocket');
    const dropped = disconnected(socket, 20_000);
    await idleFor(user, 7);
    await sessionTimeoutJob.run(server.service, new Date());
    await dropped;
    expect(expectErrorEnvelope(await user.api.get('/sns/api/v1/notifications'), 401).error_code).toBe('auth.error.session_timed_out');
  });

  it('should keep a session whose idle time is within the default timeout (60 minutes)', async () => {
    const user = await registerAndLogin(server);
    await idleFor(user, 59);
    await sessionTimeoutJob.run(server.service, new Date());
    expect((await user.api.get('/sns/api/v1/notifications')).status).toBe(200);
  });

  it('should refuse a session_timeout outside 1..43200 minutes', async () => {
    const user = await registerAndLogin(server);
    for (const bad of [0, 43_201, 1.5, '5']) {
      expectErrorEnvelope(await user.api.put('/content/api/v1/user/settings', { privacy: { session_timeout: bad } }), 400);
    }
  });
});
