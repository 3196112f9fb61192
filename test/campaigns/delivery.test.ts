// Campaigns that deliver (CONTRACT §26) over the real server: the sponsored slot of the first
// pages of /feeds and /all, location targeting, every exclusion, spending to the CPM, early
// completion on a spent budget, the refund at the end, the delivery object and campaign:progress.
// Each test promotes in its own province, so the campaigns of the other tests are never due to
// its viewers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { bootServer, type TestServer } from '../helpers/server.js';
import { ApiClient, registerAndLogin, type TestUser } from '../helpers/api.js';
import { connect } from '../realtime/socket-client.js';
import { publish, fullBody } from '../content/fixtures.js';
import { campaignCompletionJob } from '../../jobs/campaign-completion.js';
import { block } from '../blocks/fixtures.js';
import { allItems, browse, campaign, campaignUntil, CONTENT, feedItems, promote, sponsoredOf, until, at } from './delivery-fixtures.js';

let server: TestServer;
// The test-only clock seam of campaign delivery: a test moves it forward through a campaign's days.
let shiftMs = 0;
const clock = () => new Date(Date.now() + shiftMs);

beforeAll(async () => {
  // A trusted proxy: the lease test's anonymous viewers are each their own address.
  server = await bootServer({ TRUST_PROXY: 'true' }, { clock });
  // Items that are not promoted, so first pages have more than three entries.
  const other = await registerAndLogin(server);
  for (let i = 0; i < 5; i++) await publish(server, other, fullBody());
});
afterAll(() => server?.close());

const balance = async (user: TestUser) => (await user.api.get('/api/v1/users/balance')).body.data.current_balance as number;

describe('the sponsored slot', () => {
  let owner: TestUser;
  let promoted: Awaited<ReturnType<typeof promote>>;
  beforeAll(async () => {
    owner = await registerAndLogin(server);
    promoted = await promote(server, owner, { locationId: 'vn-ho-chi-minh' });
  });

  it('puts the campaign item third on the first page of /feeds and /all for a viewer browsing inside the targeted city, once, marked', async () => {
    const viewer = await registerAndLogin(server);
    await browse(viewer, 'district1');
    const feed = await feedItems(viewer);
    expect(feed.length).toBeGreaterThan(3);
    expect(sponsoredOf(feed)).toEqual([expect.objectContaining({ id: promoted.videoId, sponsored: { campaign_id: promoted.campaignId } })]);
    expect(feed[2].id).toBe(promoted.videoId);
    expect(feed.filter((i) => i.id === promoted.videoId)).toHaveLength(1);
    expect(feed.filter((i) => 'sponsored' in i)).toHaveLength(1);

    const all = await allItems(viewer);
    expect(all[2]).toMatchObject({ id: promoted.videoId, sponsored: { campaign_id: promoted.campaignId } });
    expect(all.filter((i) => i.id === promoted.videoId)).toHaveLength(1);
    expect(all.filter((i) => 'sponsored' in i)).toHaveLength(1);
    // Later pages carry none.
    expect(sponsoredOf(await allItems(viewer, undefined, 2))).toEqual([]);
  });

  it('takes the centre from the latitude and longitude of /feeds and /all, also for anonymous callers', async () => {
    const viewer = await registerAndLogin(server);
    expect(sponsoredOf(await feedItems(viewer, 'district1'))).toHaveLength(1);
    const anonymous = new ApiClient(server.url, null);
    const res = await anonymous.get(`${CONTENT}/all?per_page=10&${at('district1')}`);
    expect(res.status, res.text).toBe(200);
    expect(sponsoredOf(res.body.data.item)).toEqual([expect.objectContaining({ id: promoted.videoId })]);
  });

  it('takes the centre from an area:watch on /feed', async () => {
    const viewer = await registerAndLogin(server);
    const socket = await connect(server.url, '/feed', viewer.token, 'websocket');
    try {
      socket.emit('area:watch', { latitude: 10.7725, longitude: 106.698, zoom_level: 13 });
      await until(
        () => feedItems(viewer),
        (items) => sponsoredOf(items).length === 1,
      );
    } finally {
      socket.disconnect();
    }
  });

  it('is not shown outside the targeted places, nor to a viewer whose area is unknown', async () => {
    const elsewhere = await registerAndLogin(server);
    await browse(elsewhere, 'hanoi');
    expect(sponsoredOf(await feedItems(elsewhere))).toEqual([]);
    expect(sponsoredOf(await allItems(elsewhere))).toEqual([]);
    const unknown = await registerAndLogin(server);
    expect(sponsoredOf(await feedItems(unknown))).toEqual([]);
  });

  it('is not shown to its owner, nor across a block either way', async () => {
    expect(sponsoredOf(await feedItems(owner, 'district1'))).toEqual([]);
    const blocker = await registerAndLogin(server);
    expect((await block(blocker, owner.userId)).status).toBeLessThan(300);
    expect(sponsoredOf(await feedItems(blocker, 'district1'))).toEqual([]);
    const blocked = await registerAndLogin(server);
    expect((await block(owner, blocked.userId)).status).toBeLessThan(300);
    expect(sponsoredOf(await feedItems(blocked, 'district1'))).toEqual([]);
    expect(sponsoredOf(await allItems(blocked, 'district1'))).toEqual([]);
  });

  it('is shown to one viewer at most 3 times a day', async () => {
    const viewer = await registerAndLogin(server);
    const shown = [];
    for (let i = 0; i < 5; i++) shown.push(sponsoredOf(i % 2 ? await allItems(viewer, 'district1') : await feedItems(viewer, 'district1')).length);
    expect(shown).toEqual([1, 1, 1, 0, 0]);
  });
});

describe('what stops a campaign from being shown', () => {
  it('a pause (until it resumes)', async () => {
    const owner = await registerAndLogin(server);
    const promoted = await promote(server, owner, { locationId: 'vn-da-nang' });
    const viewer = await registerAndLogin(server);
    expect(sponsoredOf(await feedItems(viewer, 'daNang'))).toHaveLength(1);
    expect((await owner.api.post(`/api/v1/campaigns/${promoted.campaignId}/pause`)).status).toBe(200);
    expect(sponsoredOf(await feedItems(viewer, 'daNang'))).toEqual([]);
    expect((await owner.api.post(`/api/v1/campaigns/${promoted.campaignId}/resume`)).status).toBe(200);
    expect(sponsoredOf(await feedItems(viewer, 'daNang'))).toHaveLength(1);
  });

  it('an item that is not listed (held for review)', async () => {
    const owner = await registerAndLogin(server);
    const promoted = await promote(server, owner, { locationId: 'vn-hai-phong' });
    const viewer = await registerAndLogin(server);
    expect(sponsoredOf(await feedItems(viewer, 'haiPhong'))).toHaveLength(1);
    await server.service.app.database.rows(sql`update contents set moderation_status = 'under_review' where id = ${promoted.videoId}`);
    // The roster is read again within a second.
    await until(
      () => feedItems(viewer, 'haiPhong'),
      (items) => sponsoredOf(items).length === 0,
    );
    expect(sponsoredOf(await allItems(viewer, 'haiPhong'))).toEqual([]);
  });
});

describe('spending and delivery', () => {
  it('charges the CPM per 1,000 impressions and shows what was delivered', async () => {
    const owner = await registerAndLogin(server);
    const promoted = await promote(server, owner, { locationId: 'vn-thua-thien-hue' });
    const viewers = await Promise.all([1, 2, 3].map(() => registerAndLogin(server)));
    let served = 0;
    for (const viewer of viewers) {
      for (let i = 0; i < 2; i++) served += sponsoredOf(await feedItems(viewer, 'hue')).length;
    }
    expect(served).toBe(6);
    const c = await campaignUntil(owner, promoted.campaignId, (x) => x.delivery.impressions === 6);
    const spent = Math.floor((6 * promoted.cpm) / 1000);
    expect(c.delivery).toEqual({
      impressions: 6,
      reach: 3,
      views: 0,
      watch_seconds: 0,
      engagement: 0,
      leads: 0,
      spent,
      remaining: promoted.budget - spent,
      refunded: 0,
    });
    // Engagement: a reaction from a viewer after they were shown it.
    expect((await viewers[0].api.post(`/api/v1/content/${promoted.videoId}/reactions`)).status).toBe(200);
    await campaignUntil(owner, promoted.campaignId, (x) => x.delivery.engagement === 1);
    // The listing carries it too.
    const list = (await owner.api.get('/api/v1/campaigns')).body.data.campaigns;
    expect(list.find((x: any) => x.campaign_id === promoted.campaignId).delivery.impressions).toBe(6);
  });

  it('completes early when the budget is spent, and gives back what is left of it', async () => {
    const owner = await registerAndLogin(server);
    // 200 VND at the base CPM of 40,000 buys 5 impressions (8 VND left over).
    const promoted = await promote(server, owner, { locationId: 'vn-khanh-hoa', budget: 200, duration: 1 });
    const buys = Math.floor((200 * 1000) / promoted.cpm);
    const viewers = await Promise.all([1, 2, 3].map(() => registerAndLogin(server)));
    let served = 0;
    for (const viewer of viewers) {
      for (let i = 0; i < 3; i++) served += sponsoredOf(await feedItems(viewer, 'nhaTrang')).length;
    }
    expect(served).toBe(buys);
    const c = await campaignUntil(owner, promoted.campaignId, (x) => x.status === 'completed');
    const spent = Math.floor((buys * promoted.cpm) / 1000);
    expect(c.completion_reason).toBe('budget_spent');
    expect(c.delivery).toMatchObject({ impressions: buys, spent, refunded: 200 - spent, remaining: 0 });
    expect(await balance(owner)).toBe(200 - spent);
  });

  it('at the end of its duration, refunds the unspent budget once and notifies the owner', async () => {
    const owner = await registerAndLogin(server);
    const promoted = await promote(server, owner, { locationId: 'vn-can-tho', budget: 1_000_000, duration: 3 });
    const viewer = await registerAndLogin(server);
    expect(sponsoredOf(await feedItems(viewer, 'canTho'))).toHaveLength(1);
    await campaignUntil(owner, promoted.campaignId, (x) => x.delivery.impressions === 1);
    // Three days later (the clock seam), the completion job runs.
    shiftMs = 3 * 86_400_000 + 60_000;
    try {
      await campaignCompletionJob.run(server.service, clock());
      await campaignCompletionJob.run(server.service, clock());
    } finally {
      shiftMs = 0;
    }
    const c = await campaign(owner, promoted.campaignId);
    const spent = Math.floor(promoted.cpm / 1000);
    expect(c).toMatchObject({ status: 'completed', completion_reason: 'ended' });
    expect(c.delivery).toMatchObject({ impressions: 1, spent, refunded: 1_000_000 - spent, remaining: 0 });
    expect(await balance(owner)).toBe(1_000_000 - spent);
    const ledger = await server.service.app.database.rows<{ n: number }>(
      sql`select count(*)::int as n from balance_ledger where campaign_id = ${promoted.campaignId} and kind = 'refund'`,
    );
    expect(ledger[0].n).toBe(1);
    const inbox = (await owner.api.get('/sns/api/v1/notifications?limit=50')).body.data.notifications;
    expect(inbox.some((n: any) => n.type === 'campaign.completed')).toBe(true);
    expect(sponsoredOf(await feedItems(viewer, 'canTho'))).toEqual([]);
  });

  it('tells the owner its progress on /notifications', async () => {
    const owner = await registerAndLogin(server);
    const socket = await connect(server.url, '/notifications', owner.token, 'websocket');
    try {
      const progress: any[] = [];
      socket.on('campaign:progress', (p) => progress.push(p));
      const promoted = await promote(server, owner);
      const viewer = await registerAndLogin(server);
      // Untargeted: shown to a viewer whose area is unknown.
      expect(sponsoredOf(await feedItems(viewer))).toHaveLength(1);
      await until(
        async () => progress,
        (p) => p.some((x) => x.campaign_id === promoted.campaignId),
      );
      expect(progress.find((x) => x.campaign_id === promoted.campaignId).delivery).toMatchObject({ impressions: 1, reach: 1 });
      // Everywhere: paused so the other tests' viewers do not get it.
      await owner.api.post(`/api/v1/campaigns/${promoted.campaignId}/pause`);
    } finally {
      socket.disconnect();
    }
  });
  it('leases larger blocks while a campaign is served fast, so a busy node asks for few', { timeout: 60_000 }, async () => {
    const owner = await registerAndLogin(server);
    const promoted = await promote(server, owner, { locationId: 'vn-ha-noi' });
    try {
      // 150 anonymous viewers browsing Hà Nội, each its own address, 15 at a time.
      let shown = 0;
      for (let group = 0; group < 10; group++) {
        const pages = await Promise.all(
          Array.from({ length: 15 }, async (_, i) => {
            const res = await fetch(`${server.url}${CONTENT}/all?per_page=10&${at('hanoi')}`, { headers: { 'x-forwarded-for': `10.77.${group}.${i + 1}` } });
            expect(res.status).toBe(200);
            return (await res.json()).data.item as any[];
          }),
        );
        shown += pages.filter((items) => sponsoredOf(items).length === 1).length;
      }
      expect(shown).toBe(150);
      const leases = await until(
        () =>
          server.service.app.database.rows<{ granted: string; served: string }>(
            sql`select granted, served from campaign_leases where campaign_id = ${promoted.campaignId}`,
          ),
        (rows) => rows.reduce((sum, r) => sum + Number(r.served), 0) === 150,
      );
      // The first block (50) went in well under 2 s: the next ask doubled. Fixed blocks of 50 would take 3.
      expect(Math.max(...leases.map((r) => Number(r.granted)))).toBeGreaterThan(50);
      expect(leases.length).toBeLessThan(3);
    } finally {
      await owner.api.post(`/api/v1/campaigns/${promoted.campaignId}/pause`);
    }
  });
});
