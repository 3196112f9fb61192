// Listing, pausing, resuming and completing campaigns (CONTRACT §12), and the completion job.
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { campaignCompletionJob } from '../../jobs/campaign-completion.js';
import { createBody, createVideo, estimate, idem } from './fixtures.js';

let server: TestServer;
let owner: TestUser;
let other: TestUser;
let video: string;
const booted = useTestServer();
beforeAll(async () => {
  server = booted.current;
  owner = await registerAndLogin(server);
  other = await registerAndLogin(server);
  video = await createVideo(server, owner);
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
  let user: TestUser;
  let own: string;
  let first: string;
  let second: string;
  beforeAll(async () => {
    user = await registerAndLogin(server);
    own = await createVideo(server, user);
    first = await newCampaign(user, own);
    second = await newCampaign(user, own);
    await newCampaign(other, await createVideo(server, other));
  });

  it('should fail with 401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).get('/api/v1/campaigns'), 401);
  });

  it('should fail with 400 with an unknown status', async () => {
    expectErrorEnvelope(await user.api.get('/api/v1/campaigns?status=deleted'), 400);
  });

  it('should fail with 400 with per_page over 50', async () => {
    expectErrorEnvelope(await user.api.get('/api/v1/campaigns?per_page=51'), 400);
  });

  it("should list only the caller's campaigns, newest first", async () => {
    const res = await user.api.get('/api/v1/campaigns');
    expect(res.status).toBe(200);
    expect(res.body.data.campaigns.map((c: any) => c.campaign_id)).toEqual([second, first]);
    expect(res.body.data.pagination).toEqual({ page: 1, per_page: 10, total: 2, total_pages: 1 });
  });

  it("should show a campaign's budget, fee and duration", async () => {
    const c = (await user.api.get('/api/v1/campaigns')).body.data.campaigns[0];
    expect(c).toMatchObject({
      status: 'active',
      video_id: own,
      budget: { amount: 1_000_000, currency: 'VND' },
      platform_fee: 50_000,
      total_amount: 1_050_000,
      duration_days: 7,
    });
    expect(Date.parse(c.end_time) - Date.parse(c.launch_time)).toBe(7 * 86_400_000);
  });

  it('should page', async () => {
    const page2 = await user.api.get('/api/v1/campaigns?per_page=1&page=2');
    expect(page2.body.data.campaigns.map((x: any) => x.campaign_id)).toEqual([first]);
  });

  it('should filter by status', async () => {
    await user.api.post(`/api/v1/campaigns/${first}/pause`);
    expect((await user.api.get('/api/v1/campaigns?status=paused')).body.data.campaigns.map((x: any) => x.campaign_id)).toEqual([first]);
  });
});

describe('pause and resume', () => {
  let active: string;
  let paused: string;
  beforeAll(async () => {
    active = await newCampaign();
    paused = await newCampaign();
    expect((await owner.api.post(`/api/v1/campaigns/${paused}/pause`)).status).toBe(200);
  });

  it('should fail with 401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).post(`/api/v1/campaigns/${active}/pause`), 401);
  });

  it('should fail with 403 when another user pauses', async () => {
    expectErrorEnvelope(await other.api.post(`/api/v1/campaigns/${active}/pause`), 403, 'campaign.error.forbidden');
  });

  it('should fail with 403 when another user resumes', async () => {
    expectErrorEnvelope(await other.api.post(`/api/v1/campaigns/${paused}/resume`), 403, 'campaign.error.forbidden');
  });

  it('should fail with 403 when another user reads the campaign', async () => {
    expectErrorEnvelope(await other.api.get(`/api/v1/campaigns/${active}`), 403);
  });

  it('should fail with 404 for an unknown id', async () => {
    expectErrorEnvelope(await owner.api.post('/api/v1/campaigns/00000000-0000-4000-8000-000000000000/pause'), 404, 'campaign.error.not_found');
  });

  it('should fail with 404 for an id that is not a campaign id', async () => {
    expectErrorEnvelope(await owner.api.post('/api/v1/campaigns/nope/resume'), 404);
  });

  it('should fail with 409 pausing a paused campaign', async () => {
    expectErrorEnvelope(await owner.api.post(`/api/v1/campaigns/${paused}/pause`), 409, 'campaign.error.invalid_transition');
  });

  it('should fail with 409 resuming an active campaign', async () => {
    expectErrorEnvelope(await owner.api.post(`/api/v1/campaigns/${active}/resume`), 409, 'campaign.error.invalid_transition');
  });

  it('should leave campaigns unchanged after refused moves', async () => {
    expect(await status(active)).toBe('active');
    expect(await status(paused)).toBe('paused');
  });

  it('should pause an active campaign', async () => {
    const res = await owner.api.post(`/api/v1/campaigns/${active}/pause`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ campaign_id: active, status: 'paused' });
    expect(res.body.data.paused_at).toBeTruthy();
  });

  it('should resume a paused campaign', async () => {
    const res = await owner.api.post(`/api/v1/campaigns/${paused}/resume`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'active', paused_at: null });
  });

  describe('a paused campaign past its end', () => {
    let ended: string;
    beforeAll(async () => {
      ended = await newCampaign(owner, video, 3);
      await owner.api.post(`/api/v1/campaigns/${ended}/pause`);
      await backdate(ended, 4);
    });

    // These cases follow one campaign through its end, so the success comes first here.
    it('should be completed by a resume instead of resumed', async () => {
      const res = await owner.api.post(`/api/v1/campaigns/${ended}/resume`);
      expect(res.status).toBe(200);
      expect(res.body.data.status).toBe('completed');
    });

    it('should fail with 409 resuming it once completed', async () => {
      expectErrorEnvelope(await owner.api.post(`/api/v1/campaigns/${ended}/resume`), 409, 'campaign.error.invalid_transition');
    });

    it('should fail with 409 pausing it once completed', async () => {
      expectErrorEnvelope(await owner.api.post(`/api/v1/campaigns/${ended}/pause`), 409, 'campaign.error.invalid_transition');
    });
  });
});

describe('campaign completion', () => {
  it('should complete every active or paused campaign whose duration has passed, and only those', async () => {
    const ended = await newCampaign(owner, video, 1);
    const endedPaused = await newCampaign(owner, video, 3);
    const running = await newCampaign(owner, video, 30);
    await owner.api.post(`/api/v1/campaigns/${endedPaused}/pause`);
    await backdate(ended, 2);
    await backdate(endedPaused, 10);

    // (The scheduler may tick in between and do the same work: assert on the states, not on who did it.)
    const done = await server.service.services.campaigns.completeDue(new Date());
    expect(done).not.toContain(running);
    expect(await status(ended)).toBe('completed');
    expect(await status(endedPaused)).toBe('completed');
    expect(await status(running)).toBe('active');
    const detail = (await owner.api.get(`/api/v1/campaigns/${ended}`)).body.data;
    expect(detail.completed_at).toBe(detail.end_time);

    // Idempotent: a second run completes nothing more.
    expect(await server.service.services.campaigns.completeDue(new Date())).toEqual([]);
    // A tick far in the future (catching up after downtime) completes the rest.
    const later = new Date(Date.now() + 31 * 86_400_000);
    await campaignCompletionJob.run(server.service, later);
    expect(await status(running)).toBe('completed');
  });
});
