// CONTRACT §26 analytics and leads over the real server: the answer's shape with zero days,
// retention and sources, who may read it, /stats/by-day's new fields, and leads from chat rooms
// opened on an item (400 on a bad contentId, counted once per viewer, `lead.new` on the first message).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, expectErrorEnvelope, loginAdmin, registerAndLogin, type TestUser } from '../helpers/api.js';
import { bootServer, type TestServer } from '../helpers/server.js';
import { addDays } from '../../src/stats/days.js';
import { CONTENTS, eventually, publishedVideo, report, sendReport, today } from './fixtures.js';

const CHAT = '/sns/api/v1/chat';

describe('analytics and leads', () => {
  let server: TestServer;
  let owner: TestUser;
  let viewer: TestUser;
  let searcher: TestUser;
  let stranger: TestUser;
  let contentId: string;
  let offsetMs = 0;
  const day = today();

  const analytics = (user: { api: ApiClient }, from = addDays(day, -1), to = addDays(day, 1), id = contentId) =>
    user.api.get(`${CONTENTS}/${id}/analytics?start_date=${from}&end_date=${to}`);

  beforeAll(async () => {
    server = await bootServer({}, { viewClock: () => Date.now() + offsetMs });
    [owner, viewer, searcher, stranger] = await Promise.all([1, 2, 3, 4].map(() => registerAndLogin(server)));
    contentId = await publishedVideo(server, owner, 10);
    // The viewer watches the whole video from the feed; the searcher 4 of its 10 s from search.
    const whole = report();
    await sendReport(viewer.api, contentId, { ...whole, watched: 2 });
    offsetMs += 2_000;
    await sendReport(viewer.api, contentId, { ...whole, position: 4, watched: 2 });
    offsetMs += 6_000;
    await sendReport(viewer.api, contentId, { ...whole, position: 10, watched: 6 });
    const part = report({ source: 'search' });
    await sendReport(searcher.api, contentId, { ...part, watched: 2 });
    offsetMs += 2_000;
    await sendReport(searcher.api, contentId, { ...part, position: 4, watched: 2 });
    // The owner's own playback counts for nothing.
    await sendReport(owner.api, contentId, { ...report(), watched: 2 });
    await eventually(
      () => analytics(owner),
      (res) => res.body.data?.totals.views === 2,
    );
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('should fail', () => {
    it('with 401 without a token', async () => {
      expectErrorEnvelope(await analytics({ api: new ApiClient(server.url) }), 401);
    });
    it('with 404 for someone other than the owner, and for a missing item', async () => {
      expectErrorEnvelope(await analytics(stranger), 404);
      expectErrorEnvelope(await analytics(owner, day, day, randomUUID()), 404);
    });
    it('with 400 on bad dates, a reversed range and a range over the bound', async () => {
      expectErrorEnvelope(await analytics(owner, 'yesterday', day), 400);
      expectErrorEnvelope(await analytics(owner, day, addDays(day, -1)), 400);
      expectErrorEnvelope(await analytics(owner, addDays(day, -400), day), 400);
    });
  });

  it('should answer every day of the range, zeros included, with totals, retention and sources', async () => {
    const { data } = (await analytics(owner)).body;
    const zeroDay = { views: 0, unique_viewers: 0, watch_seconds: 0, avg_view_seconds: 0, impressions: 0, leads: 0 };
    expect(data.days.map((d: { date: string }) => d.date)).toEqual([addDays(day, -1), day, addDays(day, 1)].map((d) => `${d}T00:00:00.000Z`));
    expect(data.days[0]).toEqual({ date: `${addDays(day, -1)}T00:00:00.000Z`, ...zeroDay });
    expect(data.days[2]).toEqual({ date: `${addDays(day, 1)}T00:00:00.000Z`, ...zeroDay });
    expect(data.days[1]).toEqual({
      date: `${day}T00:00:00.000Z`,
      views: 2,
      unique_viewers: 2,
      watch_seconds: 14,
      avg_view_seconds: 7,
      impressions: 0,
      leads: 0,
    });
    expect(data.totals).toEqual({ views: 2, unique_viewers: 2, watch_seconds: 14, avg_view_seconds: 7, impressions: 0, leads: 0 });
    expect(data.retention).toEqual([1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]);
    expect(data.sources).toEqual({ feed: 1, search: 1, map: 0, profile: 0, campaign: 0, link: 0, live: 0 });
  });

  it('should let staff with read:analytics read any item', async () => {
    const admin = await loginAdmin(server);
    expect((await analytics(admin)).body.data.totals.views).toBe(2);
  });

  it('should carry views, watch_seconds and leads on /stats/by-day', async () => {
    const res = await owner.api.get(`/content/api/v1/stats/by-day?start_date=${day}&end_date=${day}`);
    expect(res.body.data.days[0]).toMatchObject({ views: 2, watch_seconds: 14, leads: 0 });
  });

  describe('leads', () => {
    it('should refuse a room whose contentId is missing, not visible, or whose owner is not a member (400 on contentId)', async () => {
      for (const body of [
        { memberIds: [owner.userId], contentId: randomUUID() },
        { memberIds: [owner.userId], contentId: 'nope' },
        { memberIds: [stranger.userId], contentId },
      ]) {
        const res = await viewer.api.post(`${CHAT}/rooms`, body);
        expectErrorEnvelope(res, 400);
        expect(JSON.stringify(res.body)).toContain('contentId');
      }
    });

    it('should count a room opened on the item once per viewer, and tell the owner on its first message', async () => {
      const opened = await viewer.api.post(`${CHAT}/rooms`, { memberIds: [owner.userId], contentId });
      expect(opened.status).toBe(201);
      expect(opened.body.data).toMatchObject({ contentId, direct: true });
      const again = await viewer.api.post(`${CHAT}/rooms`, { memberIds: [owner.userId], contentId });
      expect(again.body.data).toMatchObject({ roomId: opened.body.data.roomId, contentId });
      // The owner opening a room on their own item is no lead.
      expect((await owner.api.post(`${CHAT}/rooms`, { memberIds: [stranger.userId], contentId })).status).toBe(201);
      const { data } = (await analytics(owner, day, day)).body;
      expect(data.totals.leads).toBe(1);
      expect((await owner.api.get(`/content/api/v1/stats/by-day?start_date=${day}&end_date=${day}`)).body.data.days[0].leads).toBe(1);

      expect((await viewer.api.post(`${CHAT}/messages`, { roomId: opened.body.data.roomId, msg: 'Is it still for sale?' })).status).toBe(201);
      expect((await viewer.api.post(`${CHAT}/messages`, { roomId: opened.body.data.roomId, msg: 'And the price?' })).status).toBe(201);
      const inbox = await eventually(
        () => owner.api.get('/sns/api/v1/notifications'),
        (res) => JSON.stringify(res.body).includes('lead.new'),
      );
      const leads = JSON.parse(inbox.text).data.notifications.filter((n: { type: string }) => n.type === 'lead.new');
      expect(leads).toHaveLength(1);
      expect(leads[0]).toMatchObject({ actor: { userId: viewer.userId }, subject: { type: 'content', id: contentId } });
    });
  });
});
