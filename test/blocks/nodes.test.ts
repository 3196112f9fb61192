// A block holds on every node from the next request (CONTRACT §21; server mode only): made on
// node A, it is seen by node B's very next request, although B had cached the shared pages and
// the blocker's (empty) block list just before; lifted on A, B shows everything again. Live
// events of one (comments, reactions, deletions) reach the other on neither node.
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { useTwoNodesInProcess } from '../helpers/nodes.js';
import { closeAll, connect, emitAck, nextEvent } from '../realtime/socket-client.js';
import { createContent } from '../sns/fixtures.js';
import { AUTH, blockPath, reactToMessage } from './fixtures.js';

const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
const SNS = '/sns/api/v1';
const CONTENT = '/content/api/v1';

describe.skipIf(!enabled)('blocks on two nodes', () => {
  const nodes = useTwoNodesInProcess();
  afterEach(() => closeAll());
  const onA = (user: TestUser) => new ApiClient(nodes.a!.url, user.token);
  const onB = (user: TestUser) => new ApiClient(nodes.b!.url, user.token);
  const uploaders = async (api: ApiClient) =>
    new Set(((await api.get(`${CONTENT}/completed?per_page=100`)).body.data.items as any[]).map((i) => i.uploader.user_id));
  const commenters = async (api: ApiClient, contentId: string) =>
    new Set(((await api.get(`${SNS}/comments/${contentId}?limit=100`)).body.data.comments as any[]).map((c) => c.author.userId));

  it('should hold on node B from the next request after a block on node A, and end there when lifted', async () => {
    const server = nodes.server!;
    const [carol, dan, erin] = [await registerAndLogin(server), await registerAndLogin(server), await registerAndLogin(server)];
    await createContent(server, dan);
    const erinsItem = await createContent(server, erin);
    expect((await onA(dan).post(`${SNS}/comments`, { contentId: erinsItem, msg: 'Dan on Erin' })).status).toBe(201);

    // Node B caches the shared page and Carol's (empty) block list.
    expect((await uploaders(onB(carol))).has(dan.userId)).toBe(true);
    expect((await uploaders(onB(carol))).has(dan.userId)).toBe(true);
    expect((await commenters(onB(carol), erinsItem)).has(dan.userId)).toBe(true);

    expect((await onA(carol).post(blockPath(dan.userId))).status).toBe(201);

    expect((await uploaders(onB(carol))).has(dan.userId)).toBe(false);
    expect((await uploaders(onB(erin))).has(dan.userId)).toBe(true);
    expect((await commenters(onB(carol), erinsItem)).has(dan.userId)).toBe(false);
    expectErrorEnvelope(
      await onB(dan).post(`${AUTH}/users/${carol.userId}/follow`, undefined, { headers: { 'x-user-id': dan.userId } }),
      400,
      'follows.error.blocked',
    );
    const listed = await onB(carol).get(`${AUTH}/users/blocked`);
    expect(listed.body.data.items.map((i: { user_id: string }) => i.user_id)).toEqual([dan.userId]);

    expect((await onA(carol).delete(blockPath(dan.userId))).status).toBe(200);
    expect((await uploaders(onB(carol))).has(dan.userId)).toBe(true);
    expect((await commenters(onB(carol), erinsItem)).has(dan.userId)).toBe(true);
  });

  it("should keep the blocked user's comments from the blocker's socket on node B after a block on node A", async () => {
    const server = nodes.server!;
    const [carol, dan, erin, bob] = [
      await registerAndLogin(server),
      await registerAndLogin(server),
      await registerAndLogin(server),
      await registerAndLogin(server),
    ];
    const item = await createContent(server, erin);
    const carolSocket = await connect(nodes.b!.url, '/comments', carol.token, 'websocket');
    const bobSocket = await connect(nodes.b!.url, '/comments', bob.token, 'websocket');
    expect(await emitAck(carolSocket, 'content:subscribe', { contentId: item })).toEqual({ ok: true });
    expect(await emitAck(bobSocket, 'content:subscribe', { contentId: item })).toEqual({ ok: true });
    // Node B's cache holds Carol's and Dan's (empty) block lists before the block.
    const warmed = nextEvent(carolSocket, 'comment:new', (c: any) => c.author.userId === dan.userId);
    expect((await onA(dan).post(`${SNS}/comments`, { contentId: item, msg: 'before' })).status).toBe(201);
    await warmed;

    expect((await onA(carol).post(blockPath(dan.userId))).status).toBe(201);
    const carolGot: any[] = [];
    carolSocket.on('comment:new', (c) => carolGot.push(c));
    const bobHearsDan = nextEvent(bobSocket, 'comment:new', (c: any) => c.author.userId === dan.userId);
    expect((await onA(dan).post(`${SNS}/comments`, { contentId: item, msg: 'after' })).status).toBe(201);
    await bobHearsDan;
    const carolHearsErin = nextEvent(carolSocket, 'comment:new', (c: any) => c.author.userId === erin.userId);
    expect((await onA(erin).post(`${SNS}/comments`, { contentId: item, msg: 'Erin' })).status).toBe(201);
    await carolHearsErin;
    expect(carolGot.map((c) => c.author.userId)).toEqual([erin.userId]);
  });

  it('should keep reactions and deletions between the two from their sockets on node B after a block on node A', async () => {
    const server = nodes.server!;
    // Their own `api` talks to node A, as onA does; the sockets are on node B.
    const [carol, dan, erin] = [await registerAndLogin(server), await registerAndLogin(server), await registerAndLogin(server)];
    const roomId = (await onA(carol).post(`${SNS}/chat/rooms`, { memberIds: [dan.userId, erin.userId], name: 'nodes' })).body.data.roomId;
    const dansMessage = (await onA(dan).post(`${SNS}/chat/messages`, { roomId, msg: 'Dan' })).body.data._id;
    const erinsMessage = (await onA(erin).post(`${SNS}/chat/messages`, { roomId, msg: 'Erin' })).body.data._id;
    const carolSocket = await connect(nodes.b!.url, '/chat', carol.token, 'websocket');
    const danSocket = await connect(nodes.b!.url, '/chat', dan.token, 'websocket');
    const erinSocket = await connect(nodes.b!.url, '/chat', erin.token, 'websocket');
    // Node B's cache holds both users' (empty) block lists before the block.
    const warmed = nextEvent(carolSocket, 'message:reaction', (r: any) => r._id === erinsMessage);
    expect((await reactToMessage(dan, erinsMessage, '👋')).status).toBe(200);
    await warmed;

    expect((await onA(carol).post(blockPath(dan.userId))).status).toBe(201);
    const carolGot = { reactions: [] as any[], deleted: [] as any[] };
    const danGot: any[] = [];
    carolSocket.on('message:reaction', (r) => carolGot.reactions.push(r));
    carolSocket.on('message:deleted', (d) => carolGot.deleted.push(d));
    danSocket.on('message:reaction', (r) => danGot.push(r));

    let erinHears = nextEvent(erinSocket, 'message:reaction', (r: any) => r.reactions.some((x: any) => x.emoji === '👀'));
    expect((await reactToMessage(dan, erinsMessage, '👀')).status).toBe(200);
    await erinHears;
    erinHears = nextEvent(erinSocket, 'message:reaction', (r: any) => r.reactions.some((x: any) => x.emoji === '🔥'));
    expect((await reactToMessage(carol, erinsMessage, '🔥')).status).toBe(200);
    await erinHears;
    erinHears = nextEvent(erinSocket, 'message:deleted', (d: any) => d._id === dansMessage);
    expect((await onA(dan).delete(`${SNS}/chat/messages/${dansMessage}`)).status).toBe(200);
    await erinHears;

    // Erin's reaction reaches both, on node B too.
    const bothHear = [
      nextEvent(carolSocket, 'message:reaction', (r: any) => r.reactions.some((x: any) => x.emoji === '✅')),
      nextEvent(danSocket, 'message:reaction', (r: any) => r.reactions.some((x: any) => x.emoji === '✅')),
    ];
    expect((await reactToMessage(erin, erinsMessage, '✅')).status).toBe(200);
    await Promise.all(bothHear);
    const emojis = (got: any[]) => got.map((r) => r.reactions.map((x: any) => x.emoji));
    expect(emojis(carolGot.reactions)).toEqual([
      ['👋', '👀', '🔥'],
      ['👋', '👀', '🔥', '✅'],
    ]);
    expect(emojis(danGot)).toEqual([
      ['👋', '👀'],
      ['👋', '👀', '🔥', '✅'],
    ]);
    expect(carolGot.deleted).toEqual([]);
  });
});
