// Live events and blocks (CONTRACT §21), over websocket and polling: no live event of one reaches
// the other, either way (comments, messages, edits, deletions, reactions, read positions, typing,
// presence, listings); everyone else's sockets get them as before. Each test waits for a
// later event that comes the same way (a third user's), and only then checks what did not come.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { useTestServer } from '../helpers/fixture.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { closeAll, connect, emitAck, nextEvent, type Transport } from '../realtime/socket-client.js';
import { createContent } from '../sns/fixtures.js';
import { block, reactToMessage, unreactToMessage } from './fixtures.js';
import { connectFeed } from '../feed/feed-socket.js';
import { arrived, collect, listing, publishLive } from '../feed/fixtures.js';

const SNS = '/sns/api/v1';
const CHAT = `${SNS}/chat`;

const server = useTestServer();
afterEach(() => closeAll());

/** Every `event` a socket receives from now on. */
function record(socket: Socket, event: string): any[] {
  const seen: any[] = [];
  socket.on(event, (payload) => seen.push(payload));
  return seen;
}

/** A blocker, the user they blocked and a third user, all three in one chat room made before the block. */
async function trio(
  more: TestUser[] = [],
): Promise<{ carol: TestUser; dan: TestUser; erin: TestUser; roomId: string; dansMessage: string; carolsMessage: string }> {
  const carol = await registerAndLogin(server.current);
  const dan = await registerAndLogin(server.current);
  const erin = await registerAndLogin(server.current);
  const room = await carol.api.post(`${CHAT}/rooms`, {
    memberIds: [dan.userId, erin.userId, ...more.map((u) => u.userId)],
    name: `live-${randomUUID().slice(0, 8)}`,
  });
  expect(room.status).toBe(201);
  const roomId: string = room.body.data.roomId;
  const sent = await dan.api.post(`${CHAT}/messages`, { roomId, msg: 'before the block' });
  expect(sent.status).toBe(201);
  const carols = await carol.api.post(`${CHAT}/messages`, { roomId, msg: 'Carol, before the block' });
  expect(carols.status).toBe(201);
  expect((await block(carol, dan.userId)).status).toBe(201);
  return { carol, dan, erin, roomId, dansMessage: sent.body.data._id, carolsMessage: carols.body.data._id };
}

/** The trio, a message of Erin's after the block, a /chat socket each, and what Carol's and Dan's get of `event`. */
async function onChat(transport: Transport, event: string) {
  const people = await trio();
  const { carol, dan, erin, roomId } = people;
  const erinsMessage: string = (await erin.api.post(`${CHAT}/messages`, { roomId, msg: 'from Erin' })).body.data._id;
  const [carolSocket, danSocket, erinSocket] = [
    await connect(server.url, '/chat', carol.token, transport),
    await connect(server.url, '/chat', dan.token, transport),
    await connect(server.url, '/chat', erin.token, transport),
  ];
  return { ...people, erinsMessage, carolSocket, danSocket, erinSocket, carolGot: record(carolSocket, event), danGot: record(danSocket, event) };
}

describe.each(['websocket', 'polling'] as Transport[])('over %s', (transport) => {
  let bob: TestUser;
  beforeAll(async () => {
    bob = await registerAndLogin(server.current);
  });

  it("should not push the blocked user's new comments to the blocker (comment:new)", async () => {
    const { carol, dan, erin } = await trio();
    const item = await createContent(server.current, erin);
    const carolSocket = await connect(server.url, '/comments', carol.token, transport);
    const bobSocket = await connect(server.url, '/comments', bob.token, transport);
    expect(await emitAck(carolSocket, 'content:subscribe', { contentId: item })).toEqual({ ok: true });
    expect(await emitAck(bobSocket, 'content:subscribe', { contentId: item })).toEqual({ ok: true });
    const carolGot = record(carolSocket, 'comment:new');

    const bobHearsDan = nextEvent(bobSocket, 'comment:new', (c: any) => c.author.userId === dan.userId);
    expect((await dan.api.post(`${SNS}/comments`, { contentId: item, msg: 'from Dan' })).status).toBe(201);
    await bobHearsDan;
    const carolHearsErin = nextEvent(carolSocket, 'comment:new', (c: any) => c.author.userId === erin.userId);
    expect((await erin.api.post(`${SNS}/comments`, { contentId: item, msg: 'from Erin' })).status).toBe(201);
    await carolHearsErin;
    expect(carolGot.map((c) => c.author.userId)).toEqual([erin.userId]);
  });

  it("should not push the blocked user's message edits to the blocker (message:updated)", async () => {
    const { carol, dan, erin, roomId, dansMessage } = await trio();
    const carolSocket = await connect(server.url, '/chat', carol.token, transport);
    const erinSocket = await connect(server.url, '/chat', erin.token, transport);
    const carolGot = record(carolSocket, 'message:updated');

    const erinHears = nextEvent(erinSocket, 'message:updated', (m: any) => m._id === dansMessage);
    expect((await dan.api.request('PATCH', `${CHAT}/messages/${dansMessage}`, { body: { msg: 'edited after the block' } })).status).toBe(200);
    await erinHears;
    // Erin's own message in the room, later, reaches Carol.
    const erinsMessage = (await erin.api.post(`${CHAT}/messages`, { roomId, msg: 'from Erin' })).body.data._id;
    const carolHears = nextEvent(carolSocket, 'message:updated', (m: any) => m._id === erinsMessage);
    expect((await erin.api.request('PATCH', `${CHAT}/messages/${erinsMessage}`, { body: { msg: 'from Erin, edited' } })).status).toBe(200);
    await carolHears;
    expect(carolGot.map((m) => m._id)).toEqual([erinsMessage]);
  });

  it('should not push a reaction between the two, either way (message:reaction)', async () => {
    const { carol, dan, erin, erinsMessage, carolSocket, danSocket, erinSocket, carolGot, danGot } = await onChat(transport, 'message:reaction');
    const byEmoji = (emoji: string) => (r: any) => r._id === erinsMessage && r.reactions.some((x: any) => x.emoji === emoji);

    // On a third user's message, where both may react: the other one is not told.
    let erinHears = nextEvent(erinSocket, 'message:reaction', byEmoji('👀'));
    expect((await reactToMessage(dan, erinsMessage, '👀')).status).toBe(200);
    await erinHears;
    erinHears = nextEvent(erinSocket, 'message:reaction', byEmoji('🔥'));
    expect((await reactToMessage(carol, erinsMessage, '🔥')).status).toBe(200);
    await erinHears;
    erinHears = nextEvent(erinSocket, 'message:reaction', (r: any) => r._id === erinsMessage && !r.reactions.some((x: any) => x.emoji === '👀'));
    expect((await unreactToMessage(dan, erinsMessage, '👀')).status).toBe(200);
    await erinHears;
    // Erin's own reaction reaches both.
    const bothHear = [nextEvent(carolSocket, 'message:reaction', byEmoji('✅')), nextEvent(danSocket, 'message:reaction', byEmoji('✅'))];
    expect((await reactToMessage(erin, erinsMessage, '✅')).status).toBe(200);
    await Promise.all(bothHear);
    // Each hears their own changes (their other devices) and Erin's, nothing of the other one's.
    const emojis = (got: any[]) => got.map((r) => r.reactions.map((x: any) => x.emoji));
    expect(emojis(carolGot)).toEqual([
      ['👀', '🔥'],
      ['🔥', '✅'],
    ]);
    expect(emojis(danGot)).toEqual([['👀'], ['🔥'], ['🔥', '✅']]);
  });

  it('should not push a deletion between the two, either way (message:deleted)', async () => {
    const { carol, dan, erin, dansMessage, carolsMessage, erinsMessage, carolSocket, danSocket, erinSocket, carolGot, danGot } = await onChat(
      transport,
      'message:deleted',
    );

    let erinHears = nextEvent(erinSocket, 'message:deleted', (d: any) => d._id === dansMessage);
    expect((await dan.api.delete(`${CHAT}/messages/${dansMessage}`)).status).toBe(200);
    await erinHears;
    erinHears = nextEvent(erinSocket, 'message:deleted', (d: any) => d._id === carolsMessage);
    expect((await carol.api.delete(`${CHAT}/messages/${carolsMessage}`)).status).toBe(200);
    await erinHears;
    const bothHear = [
      nextEvent(carolSocket, 'message:deleted', (d: any) => d._id === erinsMessage),
      nextEvent(danSocket, 'message:deleted', (d: any) => d._id === erinsMessage),
    ];
    expect((await erin.api.delete(`${CHAT}/messages/${erinsMessage}`)).status).toBe(200);
    await Promise.all(bothHear);
    // Each hears their own deletion (their other devices) and Erin's.
    expect(carolGot.map((d) => d._id)).toEqual([carolsMessage, erinsMessage]);
    expect(danGot.map((d) => d._id)).toEqual([dansMessage, erinsMessage]);
  });

  it("should not push the blocker's edits, read positions and comments to the blocked user either", async () => {
    const { carol, dan, erin, roomId, carolsMessage } = await trio();
    const item = await createContent(server.current, erin);
    const erinsMessage = (await erin.api.post(`${CHAT}/messages`, { roomId, msg: 'from Erin' })).body.data._id;
    const danChat = await connect(server.url, '/chat', dan.token, transport);
    const danComments = await connect(server.url, '/comments', dan.token, transport);
    const erinChat = await connect(server.url, '/chat', erin.token, transport);
    const erinComments = await connect(server.url, '/comments', erin.token, transport);
    for (const socket of [danComments, erinComments]) expect(await emitAck(socket, 'content:subscribe', { contentId: item })).toEqual({ ok: true });
    const danGot = { updated: record(danChat, 'message:updated'), read: record(danChat, 'read'), comments: record(danComments, 'comment:new') };

    const erinHearsEdit = nextEvent(erinChat, 'message:updated', (m: any) => m._id === carolsMessage);
    expect((await carol.api.request('PATCH', `${CHAT}/messages/${carolsMessage}`, { body: { msg: 'edited after the block' } })).status).toBe(200);
    await erinHearsEdit;
    const erinHearsRead = nextEvent(erinChat, 'read', (r: any) => r.userId === carol.userId);
    expect((await carol.api.post(`${CHAT}/rooms/${roomId}/read`, { messageId: erinsMessage })).status).toBe(200);
    await erinHearsRead;
    const erinHearsComment = nextEvent(erinComments, 'comment:new', (c: any) => c.author.userId === carol.userId);
    expect((await carol.api.post(`${SNS}/comments`, { contentId: item, msg: 'from Carol' })).status).toBe(201);
    await erinHearsComment;

    // Erin's own doings reach Dan.
    const danHears = [
      nextEvent(danChat, 'message:updated', (m: any) => m._id === erinsMessage),
      nextEvent(danComments, 'comment:new', (c: any) => c.author.userId === erin.userId),
    ];
    expect((await erin.api.request('PATCH', `${CHAT}/messages/${erinsMessage}`, { body: { msg: 'from Erin, edited' } })).status).toBe(200);
    expect((await erin.api.post(`${SNS}/comments`, { contentId: item, msg: 'from Erin' })).status).toBe(201);
    await Promise.all(danHears);
    expect(danGot.updated.map((m) => m._id)).toEqual([erinsMessage]);
    expect(danGot.read).toEqual([]);
    expect(danGot.comments.map((c) => c.author.userId)).toEqual([erin.userId]);
  });

  it('should not push typing between the two, either way', async () => {
    const { carol, dan, erin, roomId } = await trio();
    const carolSocket = await connect(server.url, '/chat', carol.token, transport);
    const danSocket = await connect(server.url, '/chat', dan.token, transport);
    const erinSocket = await connect(server.url, '/chat', erin.token, transport);
    const carolGot = record(carolSocket, 'typing');
    const danGot = record(danSocket, 'typing');

    const erinHearsDan = nextEvent(erinSocket, 'typing', (t: any) => t.userId === dan.userId && t.typing);
    expect(await emitAck(danSocket, 'typing:start', { roomId })).toEqual({ ok: true });
    await erinHearsDan;
    const erinHearsCarol = nextEvent(erinSocket, 'typing', (t: any) => t.userId === carol.userId && t.typing);
    expect(await emitAck(carolSocket, 'typing:start', { roomId })).toEqual({ ok: true });
    await erinHearsCarol;

    const bothHearErin = [
      nextEvent(carolSocket, 'typing', (t: any) => t.userId === erin.userId),
      nextEvent(danSocket, 'typing', (t: any) => t.userId === erin.userId),
    ];
    expect(await emitAck(erinSocket, 'typing:start', { roomId })).toEqual({ ok: true });
    await Promise.all(bothHearErin);
    expect(carolGot.map((t) => t.userId)).toEqual([erin.userId]);
    expect(danGot.map((t) => t.userId)).toEqual([erin.userId]);
  });

  it('should not push presence between the two, either way', async () => {
    const frank = await registerAndLogin(server.current);
    const { carol, dan, erin, roomId } = await trio([frank]);
    // Presence is shown only to those sharing a room one created or wrote in (CONTRACT §19).
    expect((await frank.api.post(`${CHAT}/messages`, { roomId, msg: 'Frank here' })).status).toBe(201);
    const erinSocket = await connect(server.url, '/chat', erin.token, transport);

    const erinSeesDan = nextEvent(erinSocket, 'presence', (p: any) => p.userId === dan.userId && p.online);
    const danSocket = await connect(server.url, '/chat', dan.token, transport);
    await erinSeesDan;
    const danGot = record(danSocket, 'presence');
    // The blocker comes online: the blocked user is not told.
    const erinSeesCarol = nextEvent(erinSocket, 'presence', (p: any) => p.userId === carol.userId && p.online);
    const carolSocket = await connect(server.url, '/chat', carol.token, transport);
    await erinSeesCarol;
    const carolGot = record(carolSocket, 'presence');
    // The blocked user goes offline: the blocker is not told.
    const erinSeesDanLeave = nextEvent(erinSocket, 'presence', (p: any) => p.userId === dan.userId && !p.online);
    danSocket.close();
    await erinSeesDanLeave;
    // A fourth member comes online: the blocker hears of it as usual.
    const carolSeesFrank = nextEvent(carolSocket, 'presence', (p: any) => p.userId === frank.userId && p.online);
    await connect(server.url, '/chat', frank.token, transport);
    await carolSeesFrank;
    expect(carolGot.map((p) => p.userId)).toEqual([frank.userId]);
    expect(danGot.map((p) => p.userId)).toEqual([]);
  });

  it("should not send the blocked user's new listings to the blocker watching the area (listing:new)", async () => {
    const [carol, dan, erin] = [await registerAndLogin(server.current), await registerAndLogin(server.current), await registerAndLogin(server.current)];
    expect((await block(carol, dan.userId)).status).toBe(201);
    const area = { latitude: 10.73, longitude: 106.72, zoom_level: 14 };
    const carolSocket = await connectFeed(server.url, carol.token, transport, 'en');
    const bobSocket = await connectFeed(server.url, bob.token, transport, 'en');
    const carolGot = collect(carolSocket, 'listing:new');
    const bobGot = collect(bobSocket, 'listing:new');
    expect(await emitAck(carolSocket, 'area:watch', area)).toEqual({ ok: true });
    expect(await emitAck(bobSocket, 'area:watch', area)).toEqual({ ok: true });

    const dans = await publishLive(server.current, dan, listing({ lat: 10.7296, long: 106.7218 }));
    await arrived(bobGot, (i) => i.id === dans);
    const erins = await publishLive(server.current, erin, listing({ lat: 10.7296, long: 106.7218 }));
    await arrived(carolGot, (i) => i.id === erins);
    expect(carolGot.map((i) => i.id)).toEqual([erins]);
  });
});
