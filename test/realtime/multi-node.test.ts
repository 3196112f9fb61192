// Two nodes on one PostgreSQL and one Redis (same database, same REDIS_PREFIX): events made on
// node B reach sockets connected to node A. Runs only when TEST_DATABASE_URL and TEST_REDIS_URL
// are set (the CI's server pass).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer } from '../helpers/server.js';
import { startTwoNodes, type TwoNodes } from '../helpers/nodes.js';
import { ApiClient, registerAndLogin, type TestUser } from '../helpers/api.js';
import type { RunningService } from '../../service.js';
import { createContent } from '../sns/fixtures.js';
import { closeAll, connect, disconnected, emitAck, nextEvent, type Transport } from './socket-client.js';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
const SNS = '/sns/api/v1';

describe.skipIf(!enabled)('two nodes sharing PostgreSQL and Redis', () => {
  let nodeA: RunningService;
  let nodeB: RunningService;
  let serverA: TestServer;
  let nodes: TwoNodes | undefined;
  let alice: TestUser;
  let bob: TestUser;
  let bobOnB: ApiClient;
  let aliceOnB: ApiClient;

  beforeAll(async () => {
    nodes = await startTwoNodes();
    ({ nodeA, nodeB, serverA } = nodes);
    alice = await registerAndLogin(serverA, { given_name: 'Alice', family_name: 'Nguyen' });
    bob = await registerAndLogin(serverA, { given_name: 'Bob', family_name: 'Tran' });
    aliceOnB = new ApiClient(nodeB.url, alice.token);
    bobOnB = new ApiClient(nodeB.url, bob.token);
  });
  afterEach(() => closeAll());
  afterAll(async () => {
    await nodes?.close();
  });

  describe.each(['websocket', 'polling'] as Transport[])('over %s', (transport) => {
    it('should deliver a chat message posted on B to a member connected to A', async () => {
      const room = (await aliceOnB.post(`${SNS}/chat/rooms`, { memberIds: [bob.userId], name: `mn-${transport}` })).body.data;
      const bobSocket = await connect(nodeA.url, '/chat', bob.token, transport);
      expect(await emitAck(bobSocket, 'room:join', { roomId: room.roomId })).toEqual({ ok: true });
      const arrived = nextEvent(bobSocket, 'message:new', (m: any) => m.msg === `across ${transport}`);
      const posted = await aliceOnB.post(`${SNS}/chat/messages`, { roomId: room.roomId, msg: `across ${transport}` });
      expect(posted.status).toBe(201);
      expect(await arrived).toEqual(posted.body.data);
    });

    it('should deliver a comment made on B to a subscriber on A', async () => {
      const contentId = await createContent(serverA, alice);
      const sub = await connect(nodeA.url, '/comments', alice.token, transport);
      expect(await emitAck(sub, 'content:subscribe', { contentId })).toEqual({ ok: true });
      const arrived = nextEvent(sub, 'comment:new', (c: any) => c.msg === `from B ${transport}`);
      const made = await bobOnB.post(`${SNS}/comments`, { contentId, msg: `from B ${transport}` });
      expect(made.status).toBe(201);
      expect(await arrived).toEqual(made.body.data);
    });

    it('should push video:completed published on B to the uploader on A', async () => {
      const contentId = await createContent(serverA, alice);
      const socket = await connect(nodeA.url, '/processing', alice.token, transport);
      const arrived = nextEvent(socket, 'video:completed');
      const video = {
        resolution: '1920x1080',
        size: 5000,
        duration: 30,
        original_name: 'tour.mp4',
        thumbnail_url: null,
        status: 'completed',
        content_url: null,
        url: null,
      };
      nodeB.app.events.publish('video.completed', { uploaderId: alice.userId, contentId, video });
      expect(await arrived).toEqual({ contentId, video });
    });

    it('should disconnect a socket on A when its session is ended through B', async () => {
      const user = await registerAndLogin(serverA);
      const socket = await connect(nodeA.url, '/notifications', user.token, transport);
      const gone = disconnected(socket);
      const out = await new ApiClient(nodeB.url, user.token).post('/auth/api/v1/logout', undefined, {
        headers: { 'x-user-username': user.username, 'x-session-id': user.sessionId },
      });
      expect(out.status).toBe(200);
      expect(await gone).toBe('io server disconnect');
    });
  });
});
