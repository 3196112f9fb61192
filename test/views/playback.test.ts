// CONTRACT §26 playback reports over the real server: the view rule (3 s or 30 %), the owner, the
// hour window, anonymous viewers by address, the elapsed-time cap, bad input and missing items,
// view_count on the detail and the listings, and `views:update` on /comments.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { ApiClient, registerAndLogin, expectErrorEnvelope, type TestUser } from '../helpers/api.js';
import { bootServer, type TestServer } from '../helpers/server.js';
import { announceContentChanged } from '../helpers/behind-the-service.js';
import { closeAll, connect, emitAck, nextEvent } from '../realtime/socket-client.js';
import { CONTENTS, eventually, publishedVideo, report, sendReport } from './fixtures.js';

describe('playback reports', () => {
  let server: TestServer;
  let owner: TestUser;
  let viewer: TestUser;
  let anonymous: ApiClient;
  /** The reports' clock: moved forward by the tests that need an hour to pass. */
  let offsetMs = 0;

  beforeAll(async () => {
    server = await bootServer({}, { viewClock: () => Date.now() + offsetMs });
    owner = await registerAndLogin(server);
    viewer = await registerAndLogin(server);
    anonymous = new ApiClient(server.url);
  });
  afterAll(async () => {
    closeAll();
    await server?.close();
  });

  const detail = async (id: string) => (await anonymous.get(`/api/v1/content/${id}`)).body.data;

  describe('should fail', () => {
    it('with 400 on a body that is not a report', async () => {
      const id = await publishedVideo(server, owner, 60);
      for (const body of [
        {},
        { ...report(), playback_id: 'nope' },
        { ...report(), source: 'tv' },
        { ...report(), watched: -1 },
        { ...report(), extra: 1 },
        { ...report(), position: 'x' },
      ]) {
        expectErrorEnvelope(await sendReport(viewer.api, id, body), 400);
      }
    });

    it('with 404 for a missing, malformed, unpublished or deleted item', async () => {
      expectErrorEnvelope(await sendReport(viewer.api, randomUUID(), report()), 404);
      expectErrorEnvelope(await sendReport(viewer.api, 'not-an-id', report()), 404);
      const unpublished = await publishedVideo(server, owner, 60);
      await server.service.app.database.rows(sql`update contents set status = 'processing' where id = ${unpublished}`);
      await announceContentChanged(server, unpublished);
      expectErrorEnvelope(await sendReport(anonymous, unpublished, report()), 404);
      expectErrorEnvelope(await sendReport(viewer.api, unpublished, report()), 404);
      const removed = await publishedVideo(server, owner, 60);
      expect((await owner.api.delete(`/api/v1/content/${removed}`)).status).toBe(200);
      expectErrorEnvelope(await sendReport(viewer.api, removed, report()), 404);
    });
  });

  it('should count a playback once it reached 3 s of a long video, not before', async () => {
    const id = await publishedVideo(server, owner, 120);
    const r = report();
    expect((await sendReport(viewer.api, id, { ...r, watched: 0 })).body.data).toEqual({ counted: false });
    offsetMs += 2_000;
    expect((await sendReport(viewer.api, id, { ...r, position: 2, watched: 2 })).body.data).toEqual({ counted: false });
    offsetMs += 2_000;
    expect((await sendReport(viewer.api, id, { ...r, position: 4, watched: 2 })).body.data).toEqual({ counted: true });
    // Later reports of a counted playback still answer true, and count no second view.
    offsetMs += 5_000;
    expect((await sendReport(viewer.api, id, { ...r, position: 9, watched: 5 })).body.data).toEqual({ counted: true });
    const item = await eventually(
      () => detail(id),
      (d) => d.view_count === 1,
    );
    expect(item.view_count).toBe(1);
  });

  it('should count a playback of a short video at 30 % of it', async () => {
    const id = await publishedVideo(server, owner, 4);
    const r = report();
    expect((await sendReport(viewer.api, id, { ...r, watched: 1 })).body.data).toEqual({ counted: false });
    offsetMs += 1_000;
    expect((await sendReport(viewer.api, id, { ...r, position: 1.3, watched: 0.3 })).body.data).toEqual({ counted: true });
  });

  it("should cap what a report claims by the time since the playback's previous report, plus 2 s", async () => {
    const id = await publishedVideo(server, owner, 120);
    const r = report();
    // The first report has no previous one: 2 s at most, short of a view.
    expect((await sendReport(viewer.api, id, { ...r, watched: 60 })).body.data).toEqual({ counted: false });
    // No time passed: again 2 s at most (4 s in all: a view).
    expect((await sendReport(viewer.api, id, { ...r, watched: 60 })).body.data).toEqual({ counted: true });
    const analytics = await eventually(
      () => owner.api.get(`${CONTENTS}/${id}/analytics?start_date=${dayNow()}&end_date=${dayNow()}`),
      (res) => res.body.data?.totals.views === 1,
    );
    expect(analytics.body.data.totals.watch_seconds).toBe(4);
  });

  it("should never count the owner's own playbacks", async () => {
    const id = await publishedVideo(server, owner, 10);
    const r = report();
    expect((await sendReport(owner.api, id, { ...r, watched: 2 })).body.data).toEqual({ counted: false });
    offsetMs += 10_000;
    expect((await sendReport(owner.api, id, { ...r, position: 10, watched: 8 })).body.data).toEqual({ counted: false });
    await server.service.services.views.flush();
    expect((await detail(id)).view_count).toBe(0);
  });

  it('should count one view per viewer and item per hour', async () => {
    const id = await publishedVideo(server, owner, 10);
    const first = report();
    expect((await sendReport(viewer.api, id, { ...first, watched: 2 })).body.data.counted).toBe(false);
    expect((await sendReport(viewer.api, id, { ...first, watched: 2 })).body.data.counted).toBe(true);
    const again = report();
    await sendReport(viewer.api, id, { ...again, watched: 2 });
    expect((await sendReport(viewer.api, id, { ...again, watched: 2 })).body.data.counted).toBe(false);
    // Another viewer counts at once.
    const other = await registerAndLogin(server);
    const theirs = report();
    await sendReport(other.api, id, { ...theirs, watched: 2 });
    expect((await sendReport(other.api, id, { ...theirs, watched: 2 })).body.data.counted).toBe(true);
    // The next hour the first viewer counts again.
    offsetMs += 3_600_000;
    const later = report();
    await sendReport(viewer.api, id, { ...later, watched: 2 });
    expect((await sendReport(viewer.api, id, { ...later, watched: 2 })).body.data.counted).toBe(true);
    await eventually(
      () => detail(id),
      (d) => d.view_count === 3,
    );
  });

  it('should count anonymous viewers by their address, once an hour', async () => {
    const id = await publishedVideo(server, owner, 10);
    const a = report();
    await sendReport(anonymous, id, { ...a, watched: 2 });
    expect((await sendReport(anonymous, id, { ...a, watched: 2 })).body.data.counted).toBe(true);
    // Another playback from the same address in the same hour: no second view.
    const b = report();
    await sendReport(anonymous, id, { ...b, watched: 2 });
    expect((await sendReport(anonymous, id, { ...b, watched: 2 })).body.data.counted).toBe(false);
    // A signed-in viewer on the same address is another viewer.
    const c = report();
    await sendReport(viewer.api, id, { ...c, watched: 2 });
    expect((await sendReport(viewer.api, id, { ...c, watched: 2 })).body.data.counted).toBe(true);
  });

  it('should show view_count on listings and the detail', async () => {
    const id = await publishedVideo(server, owner, 10);
    const r = report();
    await sendReport(viewer.api, id, { ...r, watched: 2 });
    await sendReport(viewer.api, id, { ...r, watched: 2 });
    await eventually(
      () => detail(id),
      (d) => d.view_count === 1,
    );
    const all = await eventually(
      () => anonymous.get('/content/api/v1/all?limit=100'),
      (res) => res.body.data.item.find((i: { id: string }) => i.id === id)?.view_count === 1,
    );
    expect(all.body.data.item.every((i: { view_count: unknown }) => Number.isInteger(i.view_count))).toBe(true);
    const feed = await viewer.api.get('/content/api/v1/feeds?per_page=50');
    expect(feed.body.data.items.every((i: { view_count: unknown }) => Number.isInteger(i.view_count))).toBe(true);
  });

  it("should take reports on the /comments socket and push views:update to the item's subscribers", async () => {
    const id = await publishedVideo(server, owner, 10);
    const watcher = await connect(server.url, '/comments', owner.token, 'websocket');
    expect(await emitAck(watcher, 'content:subscribe', { contentId: id })).toEqual({ ok: true });
    const update = nextEvent(watcher, 'views:update', (u) => u.contentId === id);
    const socket = await connect(server.url, '/comments', viewer.token, 'websocket');
    const r = report();
    expect(await emitAck(socket, 'content:watch', { contentId: id, ...r, watched: 2 })).toMatchObject({ ok: true, data: { counted: false } });
    expect(await emitAck(socket, 'content:watch', { contentId: id, ...r, watched: 2 })).toMatchObject({ ok: true, data: { counted: true } });
    expect(await update).toEqual({ contentId: id, view_count: 1 });
    expect(await emitAck(socket, 'content:watch', { contentId: id, ...r, source: 'nope' })).toMatchObject({ ok: false });
    expect(await emitAck(socket, 'content:watch', { contentId: randomUUID(), ...r })).toMatchObject({ ok: false, error_code: 'content.error.not_found' });
  });
});

const dayNow = () => new Date().toISOString().slice(0, 10);
