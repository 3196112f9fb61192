// Connection state recovery across nodes (server mode; the rooms adapter, the default, and the Redis streams adapter): a client of
// node A is away for 5 s while events are made through node B, reconnects to B, and gets each
// missed event exactly once. Also: each REALTIME_ADAPTER carries a room event across nodes.
// Runs only with TEST_DATABASE_URL and TEST_REDIS_URL (the CI's server pass).
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, registerAndLogin } from '../helpers/api.js';
import { closeAll, connect, emitAck, nextEvent, type Transport } from './socket-client.js';
import { awayFiveSeconds, quietClientRecovers } from './recovery-scenario.js';
import { useTwoNodesInProcess } from '../helpers/nodes.js';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

describe.skipIf(!enabled).each(['rooms', 'streams'])('recovery across two nodes (REALTIME_ADAPTER=%s)', (adapter) => {
  const nodes = useTwoNodesInProcess({ REALTIME_ADAPTER: adapter });
  afterEach(() => closeAll());

  describe.each(['websocket', 'polling'] as Transport[])('over %s', (transport) => {
    it('should give a client that reconnects to the other node every missed event exactly once', async () => {
      await awayFiveSeconds({ server: nodes.server!, urls: [nodes.a!.url, nodes.b!.url], apiUrl: nodes.b!.url }, transport);
    }, 90_000);

    it('should recover, on the other node, a client that had received nothing yet', async () => {
      await quietClientRecovers({ server: nodes.server!, urls: [nodes.a!.url, nodes.b!.url], apiUrl: nodes.b!.url }, transport);
    }, 60_000);
  });
});

describe.skipIf(!enabled).each(['pubsub', 'sharded'])('REALTIME_ADAPTER=%s', (adapter) => {
  const nodes = useTwoNodesInProcess({ REALTIME_ADAPTER: adapter });
  afterEach(() => closeAll());

  it('should carry a chat message posted on B to a member connected to A', async () => {
    const alice = await registerAndLogin(nodes.server!);
    const bob = await registerAndLogin(nodes.server!);
    const aliceOnB = new ApiClient(nodes.b!.url, alice.token);
    const room = (await aliceOnB.post('/sns/api/v1/chat/rooms', { memberIds: [bob.userId], name: `via-${adapter}` })).body.data;
    const bobSocket = await connect(nodes.a!.url, '/chat', bob.token, 'websocket');
    expect(await emitAck(bobSocket, 'room:join', { roomId: room.roomId })).toEqual({ ok: true });
    // (The sharded adapter subscribed A to the room's channel when Bob's socket joined it.)
    const arrived = nextEvent(bobSocket, 'message:new', (m: any) => m.msg === `across ${adapter}`);
    const posted = await aliceOnB.post('/sns/api/v1/chat/messages', { roomId: room.roomId, msg: `across ${adapter}` });
    expect(posted.status).toBe(201);
    expect(await arrived).toEqual(posted.body.data);
    expect(bobSocket.recovered).toBeFalsy();
  });
});
