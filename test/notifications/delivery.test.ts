// How notifications get from their transaction to sockets (CONTRACT §17): a row committed but
// never pushed (the node died between commit and push) is pushed by the sweep, late but once;
// the video worker's outcomes are notifications too; across two nodes (server mode) a
// notification made on one node reaches the user's socket on the other once, and Web Push sees
// that socket.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import { type TestServer } from '../helpers/server.js';
import { startTwoNodes, type TwoNodes } from '../helpers/nodes.js';
import { ApiClient, registerAndLogin, type TestUser } from '../helpers/api.js';
import type { RunningService } from '../../service.js';
import { closeAll, type Transport } from '../realtime/socket-client.js';
import { UPLOAD, createContent, fakeMp4, form, makeVideo, scratchDir } from '../media/media-helpers.js';
import { inbox, listen, nextNotification, settle, SNS } from './fixtures.js';
import { PushStandIn } from './push-stand-in.js';

afterEach(() => closeAll());
afterAll(() => closeAll());

describe('one node', () => {
  const booted = useTestServer();
  let server: TestServer;
  beforeAll(() => {
    server = booted.current;
  });

  it.each<Transport>(['websocket', 'polling'])(
    'should push a notification whose commit was not followed by a push, once, via the sweep (%s)',
    { timeout: 40_000 },
    async (transport) => {
      const user = await registerAndLogin(server);
      const { socket, received } = await listen(server, user, transport);
      const subject = { type: 'content', id: randomUUID() };
      // The write of a change whose node then "died": committed, never poked.
      await server.service.app.database.transaction((tx) =>
        server.service.services.notifications.notify(tx, { userId: user.userId, type: 'saved_search.match', actorId: null, subject }),
      );
      const [stored] = (await inbox(user)).notifications;
      expect(stored).toMatchObject({ type: 'saved_search.match', subject });
      const late = await nextNotification(socket, (n) => n.id === stored.id, 20_000);
      expect(late).toEqual(stored);
      // Later sweeps and pokes do not push it again.
      await server.service.services.notifications.deliverPending();
      await settle(6_000);
      expect(received.filter((n) => n.id === stored.id)).toHaveLength(1);
    },
  );

  describe('the video worker', () => {
    const scratch = scratchDir();
    afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

    it('should notify `video.failed` when an upload cannot be processed', { timeout: 60_000 }, async () => {
      const owner = await registerAndLogin(server);
      const contentId = await createContent(owner);
      const { socket } = await listen(server, owner, 'websocket');
      const pushed = nextNotification(socket, (n) => n.type === 'video.failed' && n.subject.id === contentId, 50_000);
      const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: fakeMp4(), filename: 'fake.mp4' }]) });
      expect(res.status).toBeLessThan(300);
      const n = await pushed;
      expect(n).toMatchObject({ actor: null, subject: { type: 'content', id: contentId }, data: { error_code: 'video.error.invalid_video' } });
      expect((await inbox(owner)).notifications.filter((x: any) => x.type === 'video.failed')).toHaveLength(1);
    });

    it('should notify `video.completed` once the video is processed', { timeout: 120_000 }, async () => {
      const owner = await registerAndLogin(server);
      const contentId = await createContent(owner);
      const clip = await makeVideo(path.join(scratch, 'tour.mp4'), { seconds: 1, size: '320x240' });
      const { socket } = await listen(server, owner, 'polling');
      const pushed = nextNotification(socket, (n) => n.type === 'video.completed' && n.subject.id === contentId, 110_000);
      const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, {
        rawBody: form([{ name: 'files', value: clip, filename: 'tour.mp4', type: 'video/mp4' }]),
      });
      expect(res.status).toBeLessThan(300);
      expect(await pushed).toMatchObject({ actor: null, subject: { type: 'content', id: contentId } });
      expect((await inbox(owner)).notifications.filter((x: any) => x.type === 'video.completed')).toHaveLength(1);
    });
  });
});

const twoNodes = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

describe.skipIf(!twoNodes)('two nodes sharing PostgreSQL and Redis', () => {
  let standIn: PushStandIn;
  let nodeA: RunningService;
  let nodeB: RunningService;
  let serverA: TestServer;
  let nodes: TwoNodes | undefined;
  beforeAll(async () => {
    standIn = await PushStandIn.start();
    nodes = await startTwoNodes({ WEB_PUSH_CA_FILE: standIn.caFile, OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' });
    ({ nodeA, nodeB, serverA } = nodes);
    const someone = await registerAndLogin(serverA);
    standIn.vapidPublicKey = (await someone.api.get(`${SNS}/push/vapid-public-key`)).body.data.publicKey;
  });
  afterAll(async () => {
    closeAll();
    await nodes?.close();
    await standIn?.close();
  });

  const followOn = (node: RunningService, from: TestUser, to: TestUser) =>
    new ApiClient(node.url, from.token).post(`/auth/api/v1/users/${to.userId}/follow`, undefined, { headers: { 'x-user-id': from.userId } });

  it.each<Transport>(['websocket', 'polling'])(
    'should bring a notification made on B to a socket on A, once, and not Web Push it (%s)',
    { timeout: 40_000 },
    async (transport) => {
      const user = await registerAndLogin(serverA);
      const fan = await registerAndLogin(serverA);
      const sub = standIn.subscribe();
      expect((await user.api.post(`${SNS}/push/subscriptions`, sub.body)).status).toBe(201);
      const { socket, received } = await listen(serverA, user, transport);
      const pushed = nextNotification(socket, (n) => n.type === 'follow');
      expect((await followOn(nodeB, fan, user)).status).toBe(200);
      const n = await pushed;
      expect(n.actor.userId).toBe(fan.userId);
      await settle(6_000);
      expect(received.filter((x) => x.id === n.id)).toHaveLength(1);
      // B asked every node through the adapter: the socket on A counts, so no Web Push.
      expect(standIn.for(sub.id)).toEqual([]);
    },
  );

  it('should claim each unpushed row on one node only when both sweep', { timeout: 40_000 }, async () => {
    const user = await registerAndLogin(serverA);
    const { socket, received } = await listen(serverA, user, 'websocket');
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const subject = { type: 'content', id: randomUUID() };
      ids.push(subject.id);
      await nodeA.app.database.transaction((tx) =>
        nodeA.services.notifications.notify(tx, { userId: user.userId, type: 'saved_search.match', actorId: null, subject }),
      );
    }
    const last = nextNotification(socket, () => received.length >= 20, 20_000);
    await Promise.all([nodeA.services.notifications.deliverPending(), nodeB.services.notifications.deliverPending()]);
    await last;
    await settle(6_000);
    expect(received.map((n) => n.subject.id).sort()).toEqual([...ids].sort());
    const [row] = await nodeA.app.database.rows<{ n: number }>(
      sql`select count(*)::int as n from notifications where user_id = ${user.userId} and pushed_at is null`,
    );
    expect(row.n).toBe(0);
  });
});
