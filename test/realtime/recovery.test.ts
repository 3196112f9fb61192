// Connection state recovery on one node (CONTRACT §18 "Catching up"), over websocket and
// long-polling: a client away for 5 s gets what it missed exactly once; a session that ended
// while it was away is not recovered; a client that comes back too late, or with a forged
// session id, gets a fresh session instead.
import { afterEach, describe, expect, it } from 'vitest';
import { io } from 'socket.io-client';
import { useTestServer } from '../helpers/fixture.js';
import { registerAndLogin } from '../helpers/api.js';
import { closeAll, connect, type Transport } from './socket-client.js';
import { RecoveringClient, until } from './recovering-client.js';
import { awayFiveSeconds, quietClientRecovers } from './recovery-scenario.js';
import { ConfigError, loadConfig } from '../../src/config.js';

const server = useTestServer();
afterEach(() => closeAll());

describe.each(['websocket', 'polling'] as Transport[])('recovery over %s', (transport) => {
  it('should give a client away for 5 s every chat message, comment and notification exactly once', async () => {
    await awayFiveSeconds({ server: server.current, urls: [server.url], apiUrl: server.url }, transport);
  }, 90_000);

  it('should recover a client that had received nothing yet', async () => {
    await quietClientRecovers({ server: server.current, urls: [server.url], apiUrl: server.url }, transport);
  }, 60_000);

  it('should not recover the socket of a session that ended while it was away', async () => {
    const dana = await registerAndLogin(server.current);
    const follower = await registerAndLogin(server.current);
    // Something received first, so the client holds an offset and will ask to recover.
    const client = new RecoveringClient([server.url], ['/notifications'], dana.token, transport);
    try {
      await client.connect();
      const inbox = client.socket('/notifications');
      const follow = (who: typeof follower) => who.api.post(`/auth/api/v1/users/${dana.userId}/follow`, undefined, { headers: { 'x-user-id': who.userId } });
      expect((await follow(follower)).status).toBe(200);
      await until(() => client.keys('/notifications', 'follow:new', (f) => f.follower_id).length === 1, 20_000, 'the first follow:new');

      const refused = new Promise<Error & { data?: { error_code?: string } }>((resolve) => inbox.once('connect_error', resolve));
      client.cut(2_000);
      await until(() => !inbox.connected, 5_000, 'the cut');
      const out = await dana.api.post('/auth/api/v1/logout', undefined, { headers: { 'x-user-username': dana.username, 'x-session-id': dana.sessionId } });
      expect(out.status).toBe(200);
      const second = await registerAndLogin(server.current);
      expect((await follow(second)).status).toBe(200);

      const err = await refused;
      expect(err.message).toBe('unauthorized');
      expect(err.data?.error_code).toBe('auth.error.session_revoked');
      expect(inbox.connected).toBe(false);
      expect(inbox.recovered).toBe(false);
      // Nothing made after the logout reached the ended session.
      expect(client.keys('/notifications', 'follow:new', (f) => f.follower_id)).toEqual([follower.userId]);
    } finally {
      client.close();
    }
  }, 60_000);

  it('should start a fresh session for a forged session id or offset', async () => {
    const erin = await registerAndLogin(server.current);
    const socket = await connect(server.url, '/notifications', erin.token, transport);
    socket.close();
    const forged = io(server.url + '/notifications', {
      transports: [transport],
      forceNew: true,
      reconnection: false,
      auth: { token: erin.token, pid: 'not-a-session', offset: 'nothing' },
    });
    try {
      await new Promise<void>((resolve, reject) => {
        forged.once('connect', () => resolve());
        forged.once('connect_error', reject);
      });
      expect(forged.recovered).toBe(false);
    } finally {
      forged.close();
    }
  });
});

describe('REALTIME_ADAPTER', () => {
  it('should accept the three adapters and refuse anything else', () => {
    for (const adapter of ['rooms', 'streams', 'pubsub', 'sharded'])
      expect(loadConfig({ REALTIME_ADAPTER: adapter, NODE_ENV: 'test' }).REALTIME_ADAPTER).toBe(adapter);
    expect(loadConfig({ NODE_ENV: 'test' }).REALTIME_ADAPTER).toBe('rooms');
    expect(() => loadConfig({ REALTIME_ADAPTER: 'kafka', NODE_ENV: 'test' })).toThrow(ConfigError);
  });
});
