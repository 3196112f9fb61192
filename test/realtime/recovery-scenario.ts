// The "5 seconds away" scenario of CONTRACT §18, shared by the one-node and two-node tests: a
// client on /chat, /comments and /notifications loses its connection for 5 s while chat
// messages, comments, replies to its comment and new followers are made; it reconnects by
// itself (to `urls` in turn) with `recovered === true` and has every event exactly once, in order.
import { expect } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, registerAndLogin, type TestUser } from '../helpers/api.js';
import { createContent } from '../sns/fixtures.js';
import { emitAck, type Transport } from './socket-client.js';
import { RecoveringClient, until } from './recovering-client.js';

const SNS = '/sns/api/v1';
const AWAY_MS = 5_000;

export interface ScenarioNodes {
  /** Where users are created and fixtures written (any node: they share storage). */
  server: TestServer;
  /** Node URLs the client tries, first one first. */
  urls: string[];
  /** The node whose API makes the events while the client is away. */
  apiUrl: string;
}

export async function awayFiveSeconds(nodes: ScenarioNodes, transport: Transport): Promise<void> {
  const { server } = nodes;
  const carol = await registerAndLogin(server, { given_name: 'Carol', family_name: 'Vo' });
  const alice = await registerAndLogin(server, { given_name: 'Alice', family_name: 'Le' });
  const followers: TestUser[] = [];
  for (let i = 0; i < 3; i++) followers.push(await registerAndLogin(server));
  const aliceApi = new ApiClient(nodes.apiUrl, alice.token);

  const room = (await alice.api.post(`${SNS}/chat/rooms`, { memberIds: [carol.userId], name: `away-${transport}` })).body.data;
  const contentId = await createContent(server, alice);
  let carolsCommentId = '';

  const sent = { messages: [] as string[], comments: [] as string[], replies: [] as string[], follows: [] as string[] };
  const message = async (msg: string) => {
    const res = await aliceApi.post(`${SNS}/chat/messages`, { roomId: room.roomId, msg });
    expect(res.status).toBe(201);
    sent.messages.push(res.body.data._id);
  };
  const comment = async (msg: string) => {
    const res = await aliceApi.post(`${SNS}/comments`, { contentId, msg });
    expect(res.status).toBe(201);
    sent.comments.push(res.body.data._id);
  };
  const reply = async (msg: string) => {
    const res = await aliceApi.post(`${SNS}/comments`, { contentId, msg, parentId: carolsCommentId });
    expect(res.status).toBe(201);
    sent.comments.push(res.body.data._id);
    sent.replies.push(res.body.data._id);
  };
  const follow = async (follower: TestUser) => {
    const res = await new ApiClient(nodes.apiUrl, follower.token).post(`/auth/api/v1/users/${carol.userId}/follow`, undefined, {
      headers: { 'x-user-id': follower.userId },
    });
    expect(res.status).toBe(200);
    sent.follows.push(follower.userId);
  };

  const client = new RecoveringClient(nodes.urls, ['/chat', '/comments', '/notifications'], carol.token, transport);
  try {
    await client.connect();
    expect(await emitAck(client.socket('/comments'), 'content:subscribe', { contentId })).toEqual({ ok: true });
    // Carol's own comment (the one replied to) is made once she is subscribed, and is one of the
    // events she gets: made before, its push could still reach her after she subscribed (a push
    // follows its write by the domain's audience check, which a loaded machine can delay), and
    // nothing orders it with the comments made next on the other node until it has arrived.
    const carolsComment = await carol.api.post(`${SNS}/comments`, { contentId, msg: 'is the view open?' });
    expect(carolsComment.status).toBe(201);
    carolsCommentId = carolsComment.body.data._id;
    sent.comments.push(carolsCommentId);
    await until(() => client.keys('/comments', 'comment:new', (c) => c._id).includes(carolsCommentId), 20_000, 'Carol’s comment');
    const got = () => ({
      messages: client.keys('/chat', 'message:new', (m) => m._id),
      comments: client.keys('/comments', 'comment:new', (c) => c._id),
      replies: client.keys('/notifications', 'comment:reply', (c) => c._id),
      follows: client.keys('/notifications', 'follow:new', (f) => f.follower_id),
    });
    const allArrived = () => {
      const g = got();
      return (
        g.messages.length >= sent.messages.length &&
        g.comments.length >= sent.comments.length &&
        g.replies.length >= sent.replies.length &&
        g.follows.length >= sent.follows.length
      );
    };

    // Before: the client has received something of each kind (so it holds an offset).
    await message('before');
    await comment('before');
    await reply('before');
    await follow(followers[0]);
    await until(allArrived, 20_000, 'the events before the cut');

    const back = client.reconnected(AWAY_MS + 30_000);
    client.cut(AWAY_MS);
    await until(() => [...client.sockets.values()].every((s) => !s.connected), 5_000, 'the cut');
    const cutAt = Date.now();
    for (let i = 1; i <= 5; i++) await message(`while away ${i}`);
    await comment('while away');
    await reply('while away 1');
    await reply('while away 2');
    await follow(followers[1]);
    await follow(followers[2]);
    expect(Date.now() - cutAt).toBeLessThan(AWAY_MS); // all made while the client was away
    await back;
    for (const socket of client.sockets.values()) expect(socket.recovered).toBe(true);

    // The recovered socket acts as its user (the caller was rebuilt for it).
    const overSocket = await emitAck(client.socket('/chat'), 'message:send', { roomId: room.roomId, msg: 'back' });
    expect(overSocket.ok).toBe(true);
    sent.messages.push(overSocket.data._id);
    await message('after');
    await comment('after');
    await until(allArrived, 20_000, 'every event after the reconnect');
    await new Promise((r) => setTimeout(r, 300)); // a doubled delivery would arrive now
    expect(got()).toEqual(sent);
  } finally {
    client.close();
  }
}

/**
 * A client that has received nothing yet on a namespace (a quiet /notifications) still holds an
 * offset (`recovery:ready`), so what is sent while it is away is not lost.
 */
export async function quietClientRecovers(nodes: ScenarioNodes, transport: Transport): Promise<void> {
  const frank = await registerAndLogin(nodes.server);
  const follower = await registerAndLogin(nodes.server);
  const client = new RecoveringClient(nodes.urls, ['/notifications'], frank.token, transport);
  try {
    await client.connect();
    await until(() => client.keys('/notifications', 'recovery:ready', () => '').length === 1, 10_000, 'recovery:ready');
    expect(client.keys('/notifications', 'follow:new', (f) => f.follower_id)).toEqual([]);
    const back = client.reconnected(30_000);
    client.cut(3_000);
    await until(() => !client.socket('/notifications').connected, 5_000, 'the cut');
    const res = await new ApiClient(nodes.apiUrl, follower.token).post(`/auth/api/v1/users/${frank.userId}/follow`, undefined, {
      headers: { 'x-user-id': follower.userId },
    });
    expect(res.status).toBe(200);
    await back;
    expect(client.socket('/notifications').recovered).toBe(true);
    await until(() => client.keys('/notifications', 'follow:new', (f) => f.follower_id).length >= 1, 20_000, 'the follow made while away');
    await new Promise((r) => setTimeout(r, 300));
    expect(client.keys('/notifications', 'follow:new', (f) => f.follower_id)).toEqual([follower.userId]);
  } finally {
    client.close();
  }
}
