// Listing, pausing, resuming and completing campaigns (CONTRACT §12), and the completion job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { bootServer, type TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { completeDueCampaigns } from '../../src/campaigns/completion.js';
import { campaignCompletionJob } from '../../jobs/campaign-completion.js';
import { createBody, createVideo, estimate, idem } from './fixtures.js';

let server: TestServer;
let owner: TestUser;
let other: TestUser;
let video: string;
beforeAll(async () => {
  server = await bootServer();
  owner = await registerAndLogin(server);
  other = await registerAndLogin(server);
  video = await createVideo(server, owner);
});
afterAll(async () => {
  await server?.close();
});

async function newCampaign(user = owner, videoId = video, duration = 7): Promise<string> {
  const est = await estimate(user, videoId, { duration_days: duration });
  const res = await user.api.post('/api/v1/campaigns/create', createBody(est.estimation_id, videoId, {}, 1_000_000, duration), idem());
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body.data.campaign_id;
}

/** Moves a campaign's launch and end into the past, as if its duration had passed. */
async function backdate(campaignId: string, days: number) {
  await server.service.app.database.rows(
    sql`update campaigns set launch_time = launch_time - make_interval(days => ${days}), ends_at = ends_at - make_interval(days => ${days})
        where id = ${campaignId}`,
  );
}

const status = async (campaignId: string, user = owner) => (await user.api.get(`/api/v1/campaigns/${campaignId}`)).body.data.status;

describe('campaign listing', () => {
  it('lists only the caller\'s campaigns, newest first, with pages and a status filter', async () => {
    const user = await registerAndLogin(server);
    const own = await createVideo(server, user);
    const first = await newCampaign(user, own);
    const second = await newCampaign(user, own);
    await newCampaign(other, await createVideo(server, other));
    const res = await user.api.get('/api/v1/campaigns');
    expect(res.status).toBe(200);
    expect(res.body.data.campaigns.map((c: any) => c.campaign_id)).toEqual([second, first]);
    expect(res.body.data.pagination).toEqual({ page: 1, per_page: 10, total: 2, total_pages: 1 });
    const c = res.body.data.campaigns[0];
    expect(c).toMatchObject({ status: 'active', video_id: own, budget: { amount: 1_000_000, currency: 'VND' }, platform_fee: 50_000, total_amount: 1_050_000, duration_days: 7 });
    expect(Date.parse(c.end_time) - Date.parse(c.launch_time)).toBe(7 * 86_400_000);
    const page2 = await user.api.get('/api/v1/campaigns?per_page=1&page=2');
    expect(page2.body.data.campaigns.map((x: any) => x.campaign_id)).toEqual([first]);
    await user.api.post(`/api/v1/campaigns/${first}/pause`);
    expect((await user.api.get('/api/v1/campaigns?status=paused')).body.data.campaigns.map((x: any) => x.campaign_id)).toEqual([first]);
    expectErrorEnvelope(await user.api.get('/api/v1/campaigns?status=deleted'), 400);
    expectErrorEnvelope(await user.api.get('/api/v1/campaigns?per_page=51'), 400);
    expectErrorEnvelope(await new ApiClient(server.url).get('/api/v1/campaigns'), 401);
  });
});

describe('pause and resume', () => {
  it('moves active → paused → active, and refuses the other moves with 409', async () => {
    const id = await newCampaign();
    const paused = await owner.api.post(`/api/v1/campaigns/${id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body.data).toMatchObject({ campaign_id: id, status: 'paused' });
    expect(paused.body.data.paused_at).toBeTruthy();
    expectErrorEnvelope(await owner.api.post(`/api/v1/campaigns/${id}/pause`), 409, 'campaign.error.invalid_transition');
    const resumed = await owner.api.post(`/api/v1/campaigns/${id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({ status: 'active', paused_at: null });
    expectErrorEnvelope(await owner.api.post(`/api/v1/campaigns/${id}/resume`), 409, 'campaign.error.invalid_transition');
  });

  it('is for the owner only: 403 for another user, 404 for an unknown id', async () => {
    const id = await newCampaign();
    expectErrorEnvelope(await other.api.post(`/api/v1/campaigns/${id}/pause`), 403, 'campaign.error.forbidden');
    expectErrorEnvelope(await other.api.post(`/api/v1/campaigns/${id}/resume`), 403, 'campaign.error.forbidden');
    expectErrorEnvelope(await other.api.get(`/api/v1/campaigns/${id}`), 403);
    expect(await status(id)).toBe('active');
    expectErrorEnvelope(await owner.api.post('/api/v1/campaigns/00000000-0000-4000-8000-000000000000/pause'), 404, 'campaign.error.not_found');
    expectErrorEnvelope(await owner.api.post('/api/v1/campaigns/nope/resume'), 404);
    expectErrorEnvelope(await new ApiClient(server.url).post(`/api/v1/campaigns/${id}/pause`), 401);
  });

  it('completes a paused campaign past its end instead of resuming it', async () => {
    const id = await newCampaign(owner, video, 3);
    await owner.api.post(`/api/v1/campaigns/${id}/pause`);
    await backdate(id, 4);
    const res = await owner.api.post(`/api/v1/campaigns/${id}/resume`);
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('completed');
    expectErrorEnvelope(await owner.api.post(`/api/v1/campaigns/${id}/resume`), 409, 'campaign.error.invalid_transition');
    expectErrorEnvelope(await owner.api.post(`/api/v1/campaigns/${id}/pause`), 409, 'campaign.error.invalid_transition');
  });
});

describe('campaign completion', () => {
  it('completes every active or paused campaign whose duration has passed, and only those', async () => {
    const ended = await newCampaign(owner, video, 1);
    const endedPaused = await newCampaign(owner, video, 3);
    const running = await newCampaign(owner, video, 30);
    await owner.api.post(`/api/v1/campaigns/${endedPaused}/pause`);
    await backdate(ended, 2);
    await backdate(endedPaused, 10);

    // (The scheduler may tick in between and do the same work: assert on the states, not on who did it.)
    const done = await completeDueCampaigns(server.service.app.database, new Date());
    expect(done).not.toContain(running);
    expect(await status(ended)).toBe('completed');
    expect(await status(endedPaused)).toBe('completed');
    expect(await status(running)).toBe('active');
    const detail = (await owner.api.get(`/api/v1/campaigns/${ended}`)).body.data;
    expect(detail.completed_at).toBe(detail.end_time);

    // Idempotent: a second run completes nothing more.
    expect(await completeDueCampaigns(server.service.app.database, new Date())).toEqual([]);
    // A tick far in the future (catching up after downtime) completes the rest.
    const later = new Date(Date.now() + 31 * 86_400_000);
    await campaignCompletionJob.run(server.service.app, later);
    expect(await status(running)).toBe('completed');
  });
});
