// Socket.IO over the real server, with websocket-only and polling-only clients: handshake auth
// (missing, bad, revoked), revocation of a connected session, and every event of CONTRACT §7.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { TestServer } from '../helpers/server.js';
import { useTestServer } from '../helpers/fixture.js';
import { registerAndLogin, login, type TestUser } from '../helpers/api.js';
import { createContent } from '../sns/fixtures.js';
import { closeAll, connect, disconnected, emitAck, nextEvent, refusal, type Transport } from './socket-client.js';

const SNS = '/sns/api/v1';

const booted = useTestServer();

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let contentId: string;

beforeAll(async () => {
  server = booted.current;
  alice = await registerAndLogin(server, { given_name: 'Alice', family_name: 'Nguyen' });
  bob = await registerAndLogin(server, { given_name: 'Bob', family_name: 'Tran' });
  carol = await registerAndLogin(server, { given_name: 'Carol', family_name: 'Le' });
  contentId = await createContent(server, alice);
});
afterEach(() => closeAll());

describe.each(['websocket', 'polling'] as Transport[])('over %s', (transport) => {
  describe('handshake', () => {
    it('should refuse a connection without a token', async () => {
      const err = await refusal(server.url, '/chat', null, transport);
      expect(err.message).toBe('unauthorized');
    });

    it('should refuse a bad token on every namespace', async () => {
      for (const ns of ['/chat', '/comments', '/notifications', '/processing']) {
        const err = await refusal(server.url, ns, 'not.a.jwt', transport);
        expect(err.message).toBe('unauthorized');
      }
    });

    it('should refuse the token of a session that logged out, and drop its live sockets', async () => {
      const user = await login(server, alice.phone, alice.password);
      const live = await connect(server.url, '/notifications', user.token, transport);
      const liveChat = await connect(server.url, '/chat', user.token, transport);
      const gone = Promise.all([disconnected(live), disconnected(liveChat)]);
      const out = await user.api.post('/auth/api/v1/logout', undefined, {
        headers: { 'x-user-username': user.username, 'x-session-id': user.sessionId },
      });
      expect(out.status).toBe(200);
      expect(await gone).toEqual(['io server disconnect', 'io server disconnect']);
      const err = await refusal(server.url, '/chat', user.token, transport);
      expect(err.message).toBe('unauthorized');
      expect(err.data?.error_code).toBe('auth.error.session_revoked');
    });
  });

  describe('/chat', () => {
    it('should join members only and push message:new for REST and socket sends alike', async () => {
      const room = (await alice.api.post(`${SNS}/chat/rooms`, { memberIds: [bob.userId], name: `r-${transport}` })).body.data;
      const bobSocket = await connect(server.url, '/chat', bob.token, transport);
      const carolSocket = await connect(server.url, '/chat', carol.token, transport);

      expect(await emitAck(bobSocket, 'room:join', { roomId: room.roomId })).toEqual({ ok: true });
      const refused = await emitAck(carolSocket, 'room:join', { roomId: room.roomId });
      expect(refused).toMatchObject({ ok: false, error_code: 'chat.error.not_member' });
      expect(typeof refused.message).toBe('string');
      expect(await emitAck(bobSocket, 'room:join', { roomId: randomUUID() })).toMatchObject({ ok: false, error_code: 'chat.error.room_not_found' });
      expect(await emitAck(bobSocket, 'room:join', { roomId: 42 })).toMatchObject({ ok: false, error_code: 'validation.error.invalid_payload' });

      let carolGot = false;
      carolSocket.on('message:new', () => (carolGot = true));

      // Over REST.
      const viaRest = nextEvent(bobSocket, 'message:new', (m: any) => m.msg === 'from rest');
      const posted = await alice.api.post(`${SNS}/chat/messages`, { roomId: room.roomId, msg: 'from rest' });
      expect(posted.status).toBe(201);
      expect(await viaRest).toEqual(posted.body.data);

      // Over the socket: the same operation, acked with the stored message.
      const aliceSocket = await connect(server.url, '/chat', alice.token, transport);
      const viaSocket = nextEvent(bobSocket, 'message:new', (m: any) => m.msg === 'from socket');
      const ack = await emitAck(aliceSocket, 'message:send', { roomId: room.roomId, msg: 'from socket' });
      expect(ack.ok).toBe(true);
      expect(ack.data).toMatchObject({
        roomId: room.roomId,
        msg: 'from socket',
        sender: { userId: alice.userId, name: 'Alice Nguyen' },
        attachments: [],
        reactions: [],
      });
      expect(await viaSocket).toEqual(ack.data);
      const history = await bob.api.get(`${SNS}/chat/rooms/${room.roomId}/messages`);
      expect(history.body.data.messages.map((m: any) => m.msg)).toEqual(['from socket', 'from rest']);
      expect(carolGot).toBe(false);
    });

    it('should answer socket sends with the REST errors', async () => {
      const room = (await alice.api.post(`${SNS}/chat/rooms`, { memberIds: [bob.userId], name: `e-${transport}` })).body.data;
      const carolSocket = await connect(server.url, '/chat', carol.token, transport);
      const aliceSocket = await connect(server.url, '/chat', alice.token, transport);
      expect(await emitAck(carolSocket, 'message:send', { roomId: room.roomId, msg: 'hi' })).toMatchObject({ ok: false, error_code: 'chat.error.not_member' });
      expect(await emitAck(aliceSocket, 'message:send', { roomId: randomUUID(), msg: 'hi' })).toMatchObject({
        ok: false,
        error_code: 'chat.error.room_not_found',
      });
      expect(await emitAck(aliceSocket, 'message:send', { roomId: room.roomId })).toMatchObject({ ok: false, error_code: 'chat.error.empty_message' });
      expect(await emitAck(aliceSocket, 'message:send', { roomId: room.roomId, msg: 'x'.repeat(4001) })).toMatchObject({
        ok: false,
        error_code: 'validation.error.invalid_payload',
      });
      expect(await emitAck(aliceSocket, 'message:send', 'hello')).toMatchObject({ ok: false, error_code: 'validation.error.invalid_payload' });
    });

    it('should put a member in their existing rooms on connect', async () => {
      const room = (await alice.api.post(`${SNS}/chat/rooms`, { memberIds: [carol.userId], name: `auto-${transport}` })).body.data;
      const carolSocket = await connect(server.url, '/chat', carol.token, transport);
      const arrived = nextEvent(carolSocket, 'message:new', (m: any) => m.roomId === room.roomId);
      expect((await alice.api.post(`${SNS}/chat/messages`, { roomId: room.roomId, msg: 'welcome' })).status).toBe(201);
      expect((await arrived).msg).toBe('welcome');
    });
  });

  describe('/comments and /notifications', () => {
    it('should push comment:new to subscribers and comment:reply to the parent author', async () => {
      const sub = await connect(server.url, '/comments', carol.token, transport);
      expect(await emitAck(sub, 'content:subscribe', { contentId })).toEqual({ ok: true });
      expect(await emitAck(sub, 'content:subscribe', { contentId: randomUUID() })).toMatchObject({ ok: false, error_code: 'comments.error.content_not_found' });
      expect(await emitAck(sub, 'content:subscribe', {})).toMatchObject({ ok: false, error_code: 'validation.error.invalid_payload' });

      const top = nextEvent(sub, 'comment:new', (c: any) => c.msg === `top ${transport}`);
      const created = await alice.api.post(`${SNS}/comments`, { contentId, msg: `top ${transport}` });
      expect(created.status).toBe(201);
      expect(await top).toEqual(created.body.data);

      const aliceInbox = await connect(server.url, '/notifications', alice.token, transport);
      let selfNotified = false;
      aliceInbox.on('comment:reply', (c: any) => {
        if (c.author.userId === alice.userId) selfNotified = true;
      });
      const replyPushed = nextEvent(sub, 'comment:new', (c: any) => c.msg === `reply ${transport}`);
      const notified = nextEvent(aliceInbox, 'comment:reply', (c: any) => c.msg === `reply ${transport}`);
      const reply = await bob.api.post(`${SNS}/comments`, { contentId, msg: `reply ${transport}`, parentId: created.body.data._id });
      expect(reply.status).toBe(201);
      expect(await replyPushed).toMatchObject({ parentId: created.body.data._id });
      expect(await notified).toEqual(reply.body.data);
      // Alice answering her own thread does not notify her.
      const own = nextEvent(sub, 'comment:new', (c: any) => c.msg === `own ${transport}`);
      await alice.api.post(`${SNS}/comments`, { contentId, msg: `own ${transport}`, parentId: created.body.data._id });
      await own;
      expect(selfNotified).toBe(false);
    });

    it('should push follow:new to the followed user', async () => {
      const follower = await registerAndLogin(server, { given_name: 'Dan', family_name: 'Pham' });
      const inbox = await connect(server.url, '/notifications', bob.token, transport);
      const pushed = nextEvent(inbox, 'follow:new', (f: any) => f.follower_id === follower.userId);
      const res = await follower.api.post(`/auth/api/v1/users/${bob.userId}/follow`, undefined, { headers: { 'x-user-id': follower.userId } });
      expect(res.status).toBe(200);
      const event = await pushed;
      expect(event).toMatchObject({ follower_id: follower.userId, following_id: bob.userId, follower: { name: 'Dan Pham' } });
      expect(typeof event.created_at).toBe('string');
    });
  });

  describe('/processing', () => {
    it('should push video progress, completion and failure to the uploader only', async () => {
      const mine = await connect(server.url, '/processing', alice.token, transport);
      const other = await connect(server.url, '/processing', bob.token, transport);
      let otherGot = 0;
      for (const e of ['video:progress', 'video:completed', 'video:failed']) other.on(e, () => otherGot++);
      const events = server.service.app.events;
      const video = {
        resolution: '1280x720',
        size: 1000,
        duration: 12.5,
        original_name: 'tour.mp4',
        thumbnail_url: 'http://x/t.jpg',
        status: 'completed',
        content_url: 'http://x/o.mp4',
        url: 'http://x/p.m3u8',
      };

      const progress = nextEvent(mine, 'video:progress');
      events.publish('video.progress', { uploaderId: alice.userId, contentId, stage: 'transcoding', percent: 40 });
      expect(await progress).toEqual({ contentId, stage: 'transcoding', percent: 40 });

      const completed = nextEvent(mine, 'video:completed');
      events.publish('video.completed', { uploaderId: alice.userId, contentId, video });
      expect(await completed).toEqual({ contentId, video });

      const failed = nextEvent(mine, 'video:failed');
      events.publish('video.failed', { uploaderId: alice.userId, contentId, error_code: 'media.error.undecodable', message: 'Not a video' });
      expect(await failed).toEqual({ contentId, error_code: 'media.error.undecodable', message: 'Not a video' });
      expect(otherGot).toBe(0);
    });
  });
});
