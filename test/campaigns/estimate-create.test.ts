import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { createBody, createVideo, estimate, estimateBody, idem, moneyRows, topUp } from './fixtures.js';

let server: TestServer;
let owner: TestUser;
let other: TestUser;
let video: string;
let otherVideo: string;
const booted = useTestServer();
beforeAll(async () => {
  server = booted.current;
  owner = await registerAndLogin(server);
  other = await registerAndLogin(server);
  video = await createVideo(server, owner);
  otherVideo = await createVideo(server, other);
});

const postEstimate = (user: TestUser, body: unknown) => user.api.post('/api/v1/campaigns/estimate', body);
const postCreate = (user: TestUser, body: unknown, key?: string) =>
  user.api.post('/api/v1/campaigns/create', body, key === undefined ? idem() : { headers: { 'Idempotency-Key': key } });

describe('POST /api/v1/campaigns/estimate', () => {
  it('should fail with 401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).post('/api/v1/campaigns/estimate', estimateBody(video)), 401);
  });

  // Bodies are built inside the test: the video id is only known once it exists.
  it.each([
    ['duration_days', () => estimateBody(video, { duration_days: 2 })],
    ['budget.amount', () => estimateBody(video, { budget: { amount: -5, currency: 'VND' } })],
    ['budget.amount', () => estimateBody(video, { budget: { amount: 0, currency: 'VND' } })],
    ['budget.amount', () => estimateBody(video, { budget: { amount: 100.5, currency: 'VND' } })],
    ['budget.amount', () => estimateBody(video, { budget: { amount: '1000000', currency: 'VND' } })],
    ['budget', () => estimateBody(video, { budget: undefined })],
    ['video_id', () => estimateBody(video, { video_id: undefined })],
    ['targeting.audience.age_range.max', () => estimateBody(video, { targeting: { locations: [], audience: { age_range: { min: 40, max: 20 } } } })],
    ['targeting.locations.0.type', () => estimateBody(video, { targeting: { locations: [{ id: 'vn-ha-noi', type: 'planet' }] } })],
    ['targeting.locations', () => estimateBody(video, { targeting: { locations: Array.from({ length: 51 }, () => ({ id: 'vn-ha-noi', type: 'city' })) } })],
    [
      'targeting.audience.interests',
      () => estimateBody(video, { targeting: { locations: [], audience: { interests: Array.from({ length: 31 }, (_, i) => `i${i}`) } } }),
    ],
    ['budget.amount', () => estimateBody(video, { budget: { amount: 10_000_000_001, currency: 'VND' } })],
  ])('should fail with 400 validation.error naming %s', async (field, body) => {
    const err = expectErrorEnvelope(await postEstimate(owner, body()), 400, 'validation.error');
    expect(err.details?.field).toBe(field);
  });

  it('should fail with 400 unsupported_currency naming budget.currency', async () => {
    const currency = expectErrorEnvelope(
      await postEstimate(owner, estimateBody(video, { budget: { amount: 1_000_000, currency: 'USD' } })),
      400,
      'payment.error.unsupported_currency',
    );
    expect(currency.details?.field).toBe('budget.currency');
  });

  it('should fail with 400 unknown_location naming the location id', async () => {
    const unknown = expectErrorEnvelope(
      await postEstimate(owner, estimateBody(video, { targeting: { locations: [{ id: 'vn-atlantis', type: 'city' }] } })),
      400,
      'targeting.error.unknown_location',
    );
    expect(unknown.details?.field).toBe('targeting.locations.0.id');
  });

  it('should fail with 400 location_type_mismatch for a city sent as a district', async () => {
    expectErrorEnvelope(
      await postEstimate(owner, estimateBody(video, { targeting: { locations: [{ id: 'vn-ha-noi', type: 'district' }] } })),
      400,
      'targeting.error.location_type_mismatch',
    );
  });

  it('should fail with 404 for an unknown video', async () => {
    expectErrorEnvelope(await postEstimate(owner, estimateBody('00000000-0000-4000-8000-000000000000')), 404, 'campaign.error.video_not_found');
  });

  it('should fail with 404 for a video id that is not a uuid', async () => {
    expectErrorEnvelope(await postEstimate(owner, estimateBody('not-a-uuid')), 404, 'campaign.error.video_not_found');
  });

  it("should fail with 403 for another user's video", async () => {
    expectErrorEnvelope(await postEstimate(owner, estimateBody(otherVideo)), 403, 'campaign.error.video_forbidden');
  });

  it('should fail with 404 for a deleted video', async () => {
    const deleted = await createVideo(server, owner);
    await server.service.app.database.rows(sql`update contents set deleted_at = now() where id = ${deleted}`);
    expectErrorEnvelope(await postEstimate(owner, estimateBody(deleted)), 404, 'campaign.error.video_not_found');
  });

  it('should answer the estimation shape with the 5% fee', async () => {
    const res = await postEstimate(owner, estimateBody(video));
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const d = res.body.data;
    expect(typeof d.estimation_id).toBe('string');
    for (const key of ['reach', 'views', 'engagement']) {
      expect(d.performance[key].min).toBeGreaterThan(0);
      expect(d.performance[key].max).toBeGreaterThan(d.performance[key].min);
    }
    expect(typeof d.metrics.cpm).toBe('number');
    expect(typeof d.metrics.cpc).toBe('number');
    expect(typeof d.metrics.engagement_rate).toBe('number');
    expect(d.budget_breakdown).toMatchObject({ campaign_budget: 1_000_000, platform_fee: 50_000, estimated_daily_spend: 142_857 });
    const start = Date.parse(d.timeline.start_date);
    expect(Date.parse(d.timeline.end_date) - start).toBe(7 * 86_400_000);
    expect(d.timeline.peak_hours.length).toBeGreaterThan(0);
    for (const h of d.timeline.peak_hours) expect(h).toMatch(/^\d\d:\d\d-\d\d:\d\d$/);
  });

  it('should be deterministic', async () => {
    const base = await estimate(owner, video);
    const again = await estimate(owner, video);
    expect(again.performance).toEqual(base.performance);
  });

  it('should reach more with a larger budget or a longer duration', async () => {
    const reach = async (overrides: Record<string, unknown>) => (await estimate(owner, video, overrides)).performance.reach.max;
    const base = await estimate(owner, video);
    expect(await reach({ budget: { amount: 5_000_000, currency: 'VND' } })).toBeGreaterThan(base.performance.reach.max);
    expect(await reach({ duration_days: 30 })).toBeGreaterThan(base.performance.reach.max);
  });

  it('should not reach more people than live in a small district, and reach more in a wider area', async () => {
    const small = await estimate(owner, video, {
      budget: { amount: 2_000_000_000, currency: 'VND' },
      targeting: { locations: [{ id: 'vn-ho-chi-minh-can-gio', type: 'district' }] },
    });
    expect(small.performance.reach.max).toBeLessThanOrEqual(71_526);
    const wider = await estimate(owner, video, {
      budget: { amount: 2_000_000_000, currency: 'VND' },
      targeting: {
        locations: [
          { id: 'vn-ho-chi-minh', type: 'city' },
          { id: 'vn-ha-noi', type: 'city' },
        ],
      },
    });
    expect(wider.performance.reach.max).toBeGreaterThan(small.performance.reach.max);
  });

  it('should accept a radius entry around a place', async () => {
    const radius = await estimate(owner, video, { targeting: { locations: [{ id: 'vn-da-nang', type: 'radius', radius_km: 5 }] } });
    expect(radius.performance.reach.max).toBeGreaterThan(0);
  });
});

describe('POST /api/v1/campaigns/create', () => {
  it('should fail with 401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).post('/api/v1/campaigns/create', {}, idem()), 401);
  });

  describe('bad bodies', () => {
    let good: ReturnType<typeof createBody>;
    beforeAll(async () => {
      const est = await estimate(owner, video);
      good = createBody(est.estimation_id, video);
    });

    it.each([
      ['campaign_config.duration_days', () => ({ ...good, campaign_config: { ...good.campaign_config, duration_days: 2 } }), 'validation.error'],
      [
        'campaign_config.budget.amount',
        () => ({ ...good, campaign_config: { ...good.campaign_config, budget: { amount: -1, currency: 'VND' } } }),
        'validation.error',
      ],
      ['payment.method', () => ({ ...good, payment: { ...good.payment, method: 'cash' } }), 'validation.error'],
      [
        'campaign_config.budget.currency',
        () => ({ ...good, campaign_config: { ...good.campaign_config, budget: { amount: 1_000_000, currency: 'EUR' } } }),
        'payment.error.unsupported_currency',
      ],
      [
        'campaign_config.targeting.locations.0',
        () => ({ ...good, campaign_config: { ...good.campaign_config, targeting: { locations: ['vn-nowhere'] } } }),
        'targeting.error.unknown_location',
      ],
      ['payment_token', () => ({ ...good, payment: { ...good.payment, payment_token: 'visa' } }), 'payment.error.invalid_token'],
      ['payment_token', () => ({ ...good, payment: { method: 'card', amount: 1_050_000 } }), 'payment.error.missing_token'],
      ['campaign_config.name', () => ({ ...good, campaign_config: { ...good.campaign_config, name: 'n'.repeat(121) } }), 'validation.error'],
    ])('should fail with 400 naming %s', async (field, body, code) => {
      const err = expectErrorEnvelope(await postCreate(owner, body()), 400, code);
      expect(err.details?.field).toBe(field);
    });

    it('should fail with 413 for a body over the size limit', async () => {
      expectErrorEnvelope(await postCreate(owner, { ...good, padding: 'x'.repeat(1_100_000) }), 413);
    });

    it('should fail with 400 invalid_headers naming idempotency-key for a key over 255 characters', async () => {
      const err = expectErrorEnvelope(await postCreate(owner, good, 'k'.repeat(256)), 400, 'validation.error.invalid_headers');
      expect(err.details?.field).toBe('idempotency-key');
    });
  });

  it('should fail with 400 amount_mismatch naming payment.amount for an amount that is not budget + 5%, charging nothing', async () => {
    const est = await estimate(owner, video);
    const before = await moneyRows(server, owner.userId);
    for (const amount of [1_000_000, 1_049_999, 1_100_000]) {
      const err = expectErrorEnvelope(await postCreate(owner, createBody(est.estimation_id, video, { amount })), 400, 'payment.error.amount_mismatch');
      expect(err.details?.field).toBe('payment.amount');
    }
    expect(await moneyRows(server, owner.userId)).toEqual(before);
  });
  it('should fail with 400 raw_card_data for a card_number field, a nested card number or a Luhn-valid digit run, storing nothing', async () => {
    const est = await estimate(owner, video);
    const base = createBody(est.estimation_id, video);
    const before = await moneyRows(server, owner.userId);
    const bodies = [
      { ...base, payment: { ...base.payment, card_number: '4111111111111111' } },
      { ...base, payment: { ...base.payment, card: { number: '5555-5555-5555-4444', exp: '12/30' } } },
      { ...base, payment: { ...base.payment, payment_token: 'tok_4242424242424242' } },
      { ...base, campaign_config: { ...base.campaign_config, name: 'Pay with 4242 4242 4242 4242 please' } },
      { ...base, payment: { ...base.payment, cvv: '123' } },
    ];
    for (const body of bodies) {
      const res = await postCreate(owner, body);
      const err = expectErrorEnvelope(res, 400, 'payment.error.raw_card_data');
      expect(res.text).not.toContain('4111111111111111');
      expect(res.text).not.toContain('4242');
      expect(err.message).not.toMatch(/\d{6,}/);
    }
    expect(await moneyRows(server, owner.userId)).toEqual(before);
    // Nothing of it was stored anywhere in the money tables either.
    const [stored] = await server.service.app.database.rows<{ n: number }>(
      sql`select count(*)::int as n from idempotency_keys where response_body::text like '%4111%' or response_body::text like '%4242%'`,
    );
    expect(Number(stored.n)).toBe(0);
  });
  it('should not take a UUID whose digit groups spell a Luhn-valid number for a card', async () => {
    expectErrorEnvelope(await postCreate(owner, createBody('41111111-1111-1111-a111-111111111111', video)), 404, 'campaign.error.estimation_not_found');
  });

  describe('estimation problems', () => {
    let mine: { estimation_id: string };
    beforeAll(async () => {
      mine = await estimate(owner, video);
    });

    it('should fail with 404 for an unknown estimation', async () => {
      expectErrorEnvelope(await postCreate(owner, createBody('00000000-0000-4000-8000-000000000000', video)), 404, 'campaign.error.estimation_not_found');
    });

    it("should fail with 403 for another user's estimation", async () => {
      const theirs = await estimate(other, otherVideo);
      expectErrorEnvelope(await postCreate(owner, createBody(theirs.estimation_id, otherVideo)), 403, 'campaign.error.estimation_forbidden');
    });

    it("should fail with 422 for another video than the estimation's", async () => {
      const second = await createVideo(server, owner);
      expectErrorEnvelope(await postCreate(owner, createBody(mine.estimation_id, second)), 422, 'campaign.error.estimation_mismatch');
    });

    it("should fail with 422 for another duration than the estimation's", async () => {
      expectErrorEnvelope(await postCreate(owner, createBody(mine.estimation_id, video, {}, 1_000_000, 14)), 422, 'campaign.error.estimation_mismatch');
    });

    it("should fail with 422 for another budget than the estimation's", async () => {
      expectErrorEnvelope(
        await postCreate(owner, createBody(mine.estimation_id, video, { amount: 2_100_000 }, 2_000_000)),
        422,
        'campaign.error.estimation_mismatch',
      );
    });

    it('should fail with 422 for an expired estimation', async () => {
      await server.service.app.database.rows(sql`update campaign_estimations set expires_at = now() - interval '1 second' where id = ${mine.estimation_id}`);
      expectErrorEnvelope(await postCreate(owner, createBody(mine.estimation_id, video)), 422, 'campaign.error.estimation_expired');
    });
  });

  it('should fail with 402, leaving no campaign and no balance movement, when the payment is refused', async () => {
    const user = await registerAndLogin(server);
    const own = await createVideo(server, user);
    const est = await estimate(user, own);
    const declined = await postCreate(user, createBody(est.estimation_id, own, { payment_token: 'tok_decline' }));
    expectErrorEnvelope(declined, 402, 'payment.error.declined');
    const insufficient = await postCreate(user, createBody(est.estimation_id, own, { payment_token: 'tok_insufficient' }));
    expectErrorEnvelope(insufficient, 402, 'payment.error.insufficient_funds');
    expect(await moneyRows(server, user.userId)).toEqual({ campaigns: 0, payments: 0, ledger: 0, keys: 0 });

    // Balance method with too little money: 402, the earlier top-up stays the only movement.
    await topUp(user, 1_000_000);
    const rowsAfterTopUp = await moneyRows(server, user.userId);
    const short = await postCreate(user, createBody(est.estimation_id, own, { method: 'balance', payment_token: undefined }));
    expectErrorEnvelope(short, 402, 'payment.error.insufficient_funds');
    expect(await moneyRows(server, user.userId)).toEqual(rowsAfterTopUp);
    expect((await user.api.get('/api/v1/users/balance')).body.data.current_balance).toBe(1_000_000);
    expect((await user.api.get('/api/v1/campaigns')).body.data.campaigns).toEqual([]);

    // After a refusal the estimation is still usable, and the same key may be retried.
    const retryKey = 'retry-after-decline';
    expectErrorEnvelope(await postCreate(user, createBody(est.estimation_id, own, { payment_token: 'tok_decline' }), retryKey), 402);
    const ok = await postCreate(user, createBody(est.estimation_id, own, { payment_token: 'tok_ok' }), retryKey);
    expect(ok.status).toBe(201);
  });
  it('should create an active campaign paid by card: 1,000,000 budget charges 1,050,000', async () => {
    const est = await estimate(owner, video);
    const res = await postCreate(owner, createBody(est.estimation_id, video));
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const d = res.body.data;
    expect(d.status).toBe('active');
    expect(typeof d.campaign_id).toBe('string');
    expect(Math.abs(Date.parse(d.launch_time) - Date.now())).toBeLessThan(60_000);
    expect(d.tracking_url).toContain(`/api/v1/campaigns/${d.campaign_id}`);
    expect(d.payment).toMatchObject({ status: 'completed', amount_charged: 1_050_000 });
    expect(typeof d.payment.transaction_id).toBe('string');
    // The tracking and receipt addresses answer.
    const tracked = await owner.api.get(new URL(d.tracking_url).pathname);
    expect(tracked.body.data).toMatchObject({
      campaign_id: d.campaign_id,
      status: 'active',
      budget: { amount: 1_000_000, currency: 'VND' },
      platform_fee: 50_000,
    });
    const receipt = await owner.api.get(new URL(d.payment.receipt_url).pathname);
    expect(receipt.status).toBe(200);
    expect(receipt.body.data).toMatchObject({
      transaction_id: d.payment.transaction_id,
      amount_charged: 1_050_000,
      campaign_budget: 1_000_000,
      platform_fee: 50_000,
    });
    expectErrorEnvelope(await other.api.get(new URL(d.payment.receipt_url).pathname), 403);
    // A card payment does not touch the balance.
    expect((await owner.api.get('/api/v1/users/balance')).body.data.transactions_count).toBe(0);
  });
  it('should charge the preset budgets plus 5%', async () => {
    for (const [budget, total] of [
      [500_000, 525_000],
      [2_000_000, 2_100_000],
    ]) {
      const est = await estimate(owner, video, { budget: { amount: budget, currency: 'VND' } });
      const res = await postCreate(owner, createBody(est.estimation_id, video, {}, budget));
      expect(res.status).toBe(201);
      expect(res.body.data.payment.amount_charged).toBe(total);
    }
  });
  it('should replay the first answer for the same Idempotency-Key and body, charging once', async () => {
    const est = await estimate(owner, video);
    const body = createBody(est.estimation_id, video);
    const before = await moneyRows(server, owner.userId);
    const first = await postCreate(owner, body, 'replay-key-1');
    const second = await postCreate(owner, body, 'replay-key-1');
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.data).toEqual(first.body.data);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const after = await moneyRows(server, owner.userId);
    expect(after.campaigns - before.campaigns).toBe(1);
    expect(after.payments - before.payments).toBe(1);
    // Same key, different body: 409, nothing charged.
    const changed = await postCreate(owner, { ...body, campaign_config: { ...body.campaign_config, name: 'Another name' } }, 'replay-key-1');
    expectErrorEnvelope(changed, 409, 'idempotency.error.key_reused');
    expect((await moneyRows(server, owner.userId)).payments).toBe(after.payments);
    // The used estimation cannot buy a second campaign under a new key.
    expectErrorEnvelope(await postCreate(owner, body), 409, 'campaign.error.estimation_used');
  });
  it('should create without an Idempotency-Key, and a retry of that request cannot pay twice', async () => {
    const est = await estimate(owner, video);
    const before = await moneyRows(server, owner.userId);
    const res = await owner.api.post('/api/v1/campaigns/create', createBody(est.estimation_id, video));
    expect(res.status).toBe(201);
    expect(res.body.data.status).toBe('active');
    const retry = await owner.api.post('/api/v1/campaigns/create', createBody(est.estimation_id, video));
    expectErrorEnvelope(retry, 409, 'campaign.error.estimation_used');
    expect((await moneyRows(server, owner.userId)).payments).toBe(before.payments + 1);
  });
  it('should accept a long digit run that fails Luhn (an order number)', async () => {
    const est = await estimate(owner, video);
    const base = createBody(est.estimation_id, video);
    const ok = await postCreate(owner, { ...base, campaign_config: { ...base.campaign_config, name: 'Order 4111111111111112' } });
    expect(ok.status).toBe(201);
  });
  it('should pay from the balance when it is enough, as one ledger movement', async () => {
    const user = await registerAndLogin(server);
    const own = await createVideo(server, user);
    await topUp(user, 2_000_000);
    const est = await estimate(user, own);
    const res = await postCreate(user, createBody(est.estimation_id, own, { method: 'balance', payment_token: undefined }));
    expect(res.status).toBe(201);
    expect(res.body.data.payment).toMatchObject({ amount_charged: 1_050_000, payment_method: 'balance' });
    const balance = (await user.api.get('/api/v1/users/balance')).body.data;
    expect(balance).toMatchObject({ current_balance: 950_000, transactions_count: 2, currency: 'VND' });
  });
});
