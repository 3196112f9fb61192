// The wiring between campaign delivery and the views (CONTRACT §26) over the real server: a viewer
// is served the sponsored item, reports a playback with source `campaign` and the campaign's id,
// and the campaign's `delivery` shows the view, the watched seconds and the lead its viewer opened,
// while the item's analytics show the impressions delivery served (ViewService.recordImpressions,
// called from CampaignDelivery's flush). Figures are written in batches: the test polls them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootServer, type TestServer } from '../helpers/server.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { publish, fullBody } from '../content/fixtures.js';
import { CONTENTS, eventually, report, sendReport, today } from '../views/fixtures.js';
import { allItems, campaignUntil, feedItems, promote, sponsoredOf, type Promoted } from './delivery-fixtures.js';

let server: TestServer;
let owner: TestUser;
let promoted: Promoted;

beforeAll(async () => {
  server = await bootServer();
  // Items that are not promoted, so the first page has a third place to fill.
  const other = await registerAndLogin(server);
  for (let i = 0; i < 3; i++) await publish(server, other, fullBody());
  owner = await registerAndLogin(server);
  promoted = await promote(server, owner, { locationId: 'vn-ho-chi-minh' });
});
afterAll(() => server?.close());

const analytics = (user: TestUser, day = today()) => user.api.get(`${CONTENTS}/${promoted.videoId}/analytics?start_date=${day}&end_date=${day}`);

describe('a campaign and the views its playbacks bring', () => {
  it('counts the sponsored playback, its watched seconds and its lead on the campaign, and its impressions on the item', async () => {
    const viewer = await registerAndLogin(server);
    // Served twice: once on /feeds, once on /all (two impressions, under the cap of 3 a day).
    const feed = await feedItems(viewer, 'district1');
    expect(sponsoredOf(feed)).toEqual([expect.objectContaining({ id: promoted.videoId, sponsored: { campaign_id: promoted.campaignId } })]);
    const all = await allItems(viewer, 'district1');
    expect(sponsoredOf(all)).toEqual([expect.objectContaining({ id: promoted.videoId, sponsored: { campaign_id: promoted.campaignId } })]);
    const campaignId = sponsoredOf(feed)[0].sponsored.campaign_id as string;

    // The item's video length is unknown, so 3 s make a view; a first report may claim 2 s, the
    // next (no time passed) 2 s more: 4 s watched, a view.
    const playback = report({ source: 'campaign', campaign_id: campaignId });
    expect((await sendReport(viewer.api, promoted.videoId, { ...playback, watched: 2 })).body.data).toEqual({ counted: false });
    expect((await sendReport(viewer.api, promoted.videoId, { ...playback, position: 4, watched: 2 })).body.data).toEqual({ counted: true });

    // Both flushes (views, delivery) run every second; the campaign reads the views' figures.
    const c = await campaignUntil(owner, campaignId, (x) => x.delivery.views >= 1 && x.delivery.watch_seconds > 0 && x.delivery.impressions >= 2);
    expect(c.delivery).toMatchObject({ impressions: 2, reach: 1, views: 1, watch_seconds: 4, leads: 0 });

    // The item's analytics count the impressions delivery served, and the view by its source.
    const seen = await eventually(
      () => analytics(owner),
      (res) => res.body.data?.totals.impressions >= 1 && res.body.data?.totals.views >= 1,
    );
    const { data } = seen.body;
    expect(data.days).toHaveLength(1);
    expect(data.days[0]).toMatchObject({ date: `${today()}T00:00:00.000Z`, impressions: 2, views: 1, unique_viewers: 1, watch_seconds: 4 });
    expect(data.totals.impressions).toBe(c.delivery.impressions);
    expect(data.sources).toMatchObject({ campaign: 1, feed: 0 });

    // A chat room the reached viewer opens on the item is a lead of the item and of the campaign.
    const room = await viewer.api.post('/sns/api/v1/chat/rooms', { memberIds: [owner.userId], contentId: promoted.videoId });
    expect(room.status, room.text).toBe(201);
    expect(room.body.data).toMatchObject({ contentId: promoted.videoId });
    const led = await campaignUntil(owner, campaignId, (x) => x.delivery.leads >= 1);
    expect(led.delivery).toMatchObject({ views: 1, watch_seconds: 4, leads: 1 });
    const withLead = await eventually(
      () => analytics(owner),
      (res) => res.body.data?.totals.leads >= 1,
    );
    expect(withLead.body.data.totals.leads).toBe(1);
  });

  it('counts for the campaign only playbacks whose source is `campaign`, and only for its own item', async () => {
    const before = (await campaignUntil(owner, promoted.campaignId, () => true)).delivery;
    const itemViews = async () => (await analytics(owner)).body.data.totals.views as number;
    const viewsBefore = await itemViews();

    // A viewer who came from the feed names the campaign, but its source is `feed`: the item's view only.
    const fromFeed = await registerAndLogin(server);
    const playback = report({ source: 'feed', campaign_id: promoted.campaignId });
    await sendReport(fromFeed.api, promoted.videoId, { ...playback, watched: 2 });
    expect((await sendReport(fromFeed.api, promoted.videoId, { ...playback, watched: 2 })).body.data).toEqual({ counted: true });

    // A playback of another item that names this campaign: that item's view, never the campaign's.
    const elsewhere = await publish(server, owner, fullBody());
    const stray = report({ source: 'campaign', campaign_id: promoted.campaignId });
    await sendReport(fromFeed.api, elsewhere, { ...stray, watched: 2 });
    expect((await sendReport(fromFeed.api, elsewhere, { ...stray, watched: 2 })).body.data).toEqual({ counted: true });
    await eventually(
      () => owner.api.get(`${CONTENTS}/${elsewhere}/analytics?start_date=${today()}&end_date=${today()}`),
      (res) => res.body.data?.totals.views === 1,
    );

    // Views and the campaign's share are written by the same flush: once the item shows the new view, so would the campaign.
    await eventually(itemViews, (n) => n === viewsBefore + 1);
    const after = (await campaignUntil(owner, promoted.campaignId, () => true)).delivery;
    expect({ views: after.views, watch_seconds: after.watch_seconds }).toEqual({ views: before.views, watch_seconds: before.watch_seconds });
  });
});
