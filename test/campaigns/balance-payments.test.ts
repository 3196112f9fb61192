// Balance (ledger, top-up), boost and /payments/process.
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { createBody, createVideo, estimate, idem, moneyRows, topUp } from './fixtures.js';

let server: TestServer;
let other: TestUser;
let otherVideo: string;
const booted = useTestServer();
beforeAll(async () => {
  server = booted.current;
  other = await registerAndLogin(server);
  otherVideo = await createVideo(server, other);
});

const balance = async (user: TestUser) => (await user.api.get('/api/v1/users/balance')).body.data;

describe('GET /api/v1/users/balance and POST /api/v1/users/balance/top-up', () => {
  describe('refused top-ups', () => {
    let user: TestUser;
    beforeAll(async () => {
      user = await registerAndLogin(server);
    });
    const post = (body: unknown) => user.api.post('/api/v1/users/balance/top-up', body, idem());

    it('should fail with 401 reading the balance without a token', async () => {
      expectErrorEnvelope(await new ApiClient(server.url).get('/api/v1/users/balance'), 401);
    });

    it.each([
      ['a negative amount', { amount: -100, payment_token: 'tok_visa' }],
      ['an amount that is not whole', { amount: 1.5, payment_token: 'tok_visa' }],
      ['no payment_token', { amount: 100 }],
      ['the balance as method', { amount: 100, payment_token: 'tok_visa', method: 'balance' }],
    ])('should fail with 400 validation.error with %s', async (_case, body) => {
      expectErrorEnvelope(await post(body), 400, 'validation.error');
    });

    it('should fail with 400 unsupported_currency with another currency', async () => {
      expectErrorEnvelope(await post({ amount: 100, payment_token: 'tok_visa', currency: 'USD' }), 400, 'payment.error.unsupported_currency');
    });

    it('should fail with 400 raw_card_data with a card number field', async () => {
      expectErrorEnvelope(await post({ amount: 100, payment_token: 'tok_visa', card_number: '4111111111111111' }), 400, 'payment.error.raw_card_data');
    });

    it('should fail with 400 raw_card_data with a card number as the token', async () => {
      expectErrorEnvelope(await post({ amount: 100, payment_token: '378282246310005' }), 400, 'payment.error.raw_card_data');
    });

    it('should fail with 402 declined when the provider declines', async () => {
      expectErrorEnvelope(await post({ amount: 100, payment_token: 'tok_decline' }), 402, 'payment.error.declined');
    });

    it('should fail with 402 insufficient_funds when the card is short', async () => {
      expectErrorEnvelope(await post({ amount: 100, payment_token: 'tok_insufficient' }), 402, 'payment.error.insufficient_funds');
    });

    it('should leave no money rows behind a refused top-up', async () => {
      expect(await moneyRows(server, user.userId)).toEqual({ campaigns: 0, payments: 0, ledger: 0, keys: 0 });
    });
  });

  it('should start empty and add each top-up as a ledger movement', async () => {
    const user = await registerAndLogin(server);
    const empty = await user.api.get('/api/v1/users/balance');
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual({
      current_balance: 0,
      currency: 'VND',
      pending_amount: 0,
      last_updated: null,
      transactions_count: 0,
      top_up_methods: ['card', 'paypal', 'crypto'],
    });
    const res = await user.api.post('/api/v1/users/balance/top-up', { amount: 300_000, payment_token: 'tok_visa', method: 'card' }, idem());
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'completed', amount_charged: 300_000, payment_method: 'card', receipt: { email_sent: false } });
    expect(res.body.data.balance.current_balance).toBe(300_000);
    await user.api.post('/api/v1/users/balance/top-up', { amount: 200_000, payment_token: 'tok_pp', method: 'paypal' });
    const after = await balance(user);
    expect(after).toMatchObject({ current_balance: 500_000, transactions_count: 2, pending_amount: 0 });
    expect(Date.parse(after.last_updated)).not.toBeNaN();
  });

  it('should fail with 400 invalid_headers naming idempotency-key for a key that is not 1-255 printable ASCII characters, charging nothing', async () => {
    const user = await registerAndLogin(server);
    const body = { amount: 100_000, payment_token: 'tok_visa', method: 'card' };
    const refused = await user.api.post('/api/v1/users/balance/top-up', body, idem('has spaces in it'));
    const err = expectErrorEnvelope(refused, 400, 'validation.error.invalid_headers');
    expect(err.details?.field).toBe('idempotency-key');
    expect((await balance(user)).current_balance).toBe(0);
  });

  it('should replay a top-up with the same key once, and fail with 409 key_reused for another body', async () => {
    const user = await registerAndLogin(server);
    const body = { amount: 100_000, payment_token: 'tok_visa', method: 'card' };
    const first = await user.api.post('/api/v1/users/balance/top-up', body, idem('topup-1'));
    const second = await user.api.post('/api/v1/users/balance/top-up', body, idem('topup-1'));
    expect(second.status).toBe(200);
    expect(second.body.data.transaction_id).toBe(first.body.data.transaction_id);
    expect((await balance(user)).current_balance).toBe(100_000);
    expectErrorEnvelope(await user.api.post('/api/v1/users/balance/top-up', { ...body, amount: 999 }, idem('topup-1')), 409, 'idempotency.error.key_reused');
    expect((await balance(user)).current_balance).toBe(100_000);
  });
});

describe('POST /api/v1/posts/:postId/boost', () => {
  describe('refused boosts', () => {
    let user: TestUser;
    let post: string;
    beforeAll(async () => {
      user = await registerAndLogin(server);
      post = await createVideo(server, user);
      await topUp(user, 5_000_000);
    });
    const boost = (body: unknown, id = post) => user.api.post(`/api/v1/posts/${id}/boost`, body);

    it('should fail with 401 without a token', async () => {
      expectErrorEnvelope(await new ApiClient(server.url).post(`/api/v1/posts/${post}/boost`, { boostType: 'basic', duration: 3 }), 401);
    });

    it.each([
      ['a duration that is not offered', { boostType: 'basic', duration: 2 }],
      ['a negative budget', { boostType: 'custom', duration: 3, budget: -10 }],
      ['no boostType', { duration: 3 }],
      ['an age range upside down', { boostType: 'basic', duration: 3, targetAudience: { ageRange: '40-20' } }],
    ])('should fail with 400 validation.error with %s', async (_case, body) => {
      expectErrorEnvelope(await boost(body), 400, 'validation.error');
    });

    it('should fail with 400 unknown_location with a place we do not know', async () => {
      expectErrorEnvelope(
        await boost({ boostType: 'basic', duration: 3, targetAudience: { location: ['Atlantis'] } }),
        400,
        'targeting.error.unknown_location',
      );
    });

    it('should fail with 400 raw_card_data with a card number', async () => {
      expectErrorEnvelope(await boost({ boostType: 'basic', duration: 3, card_number: '4111 1111 1111 1111' }), 400, 'payment.error.raw_card_data');
    });

    it("should fail with 400 preset_mismatch with a budget other than the preset's", async () => {
      expectErrorEnvelope(await boost({ boostType: 'premium', duration: 1, budget: 1_000_000 }), 400, 'campaign.error.preset_mismatch');
    });

    it('should fail with 400 budget_required for a custom boost without a budget', async () => {
      expectErrorEnvelope(await boost({ boostType: 'custom', duration: 1 }), 400, 'campaign.error.budget_required');
    });

    it("should fail with 403 for another user's post", async () => {
      expectErrorEnvelope(await boost({ boostType: 'basic', duration: 3 }, otherVideo), 403, 'campaign.error.video_forbidden');
    });

    it('should fail with 404 for an unknown post', async () => {
      expectErrorEnvelope(await boost({ boostType: 'basic', duration: 3 }, '00000000-0000-4000-8000-000000000000'), 404, 'campaign.error.video_not_found');
    });

    it('should leave the balance untouched by refused boosts', async () => {
      expect((await balance(user)).current_balance).toBe(5_000_000);
    });
  });

  it('should fail with 402 insufficient_funds, writing nothing, when the balance is short', async () => {
    const user = await registerAndLogin(server);
    const post = await createVideo(server, user);
    await topUp(user, 1_000_000);
    const before = await moneyRows(server, user.userId);
    // Standard costs 1,050,000 with the fee: 50,000 short.
    expectErrorEnvelope(await user.api.post(`/api/v1/posts/${post}/boost`, { boostType: 'standard', duration: 3 }), 402, 'payment.error.insufficient_funds');
    expect(await moneyRows(server, user.userId)).toEqual(before);
    expect((await balance(user)).current_balance).toBe(1_000_000);
  });

  it('should boost with a preset, paid from the balance with the 5% fee', async () => {
    const user = await registerAndLogin(server);
    const post = await createVideo(server, user);
    await topUp(user, 3_000_000);
    const res = await user.api.post(`/api/v1/posts/${post}/boost`, {
      boostType: 'Standard',
      duration: 7,
      targetAudience: { location: ['Hà Nội', 'ho chi minh city', 'vn-da-nang'], ageRange: '25-45', interests: ['apartments'] },
    });
    expect(res.status).toBe(201);
    const d = res.body.data;
    expect(d).toMatchObject({
      post_id: post,
      boost_type: 'standard',
      status: 'active',
      duration_days: 7,
      budget: { amount: 1_000_000, platform_fee: 50_000, total_amount: 1_050_000, currency: 'VND' },
      payment: { status: 'completed', amount_charged: 1_050_000, payment_method: 'balance' },
      balance: { current_balance: 1_950_000, currency: 'VND' },
    });
    expect(d.estimate.performance.reach.max).toBeGreaterThan(0);
    const campaign = (await user.api.get(`/api/v1/campaigns/${d.campaign_id}`)).body.data;
    expect(campaign).toMatchObject({ source: 'boost', boost_type: 'standard', status: 'active' });
    expect(campaign.targeting.locations.map((l: any) => l.id)).toEqual(['vn-ha-noi', 'vn-ho-chi-minh', 'vn-da-nang']);
    expect(campaign.targeting.audience.ageRange).toEqual({ min: 25, max: 45 });
  });

  it('should charge the three presets and custom budgets with the fee', async () => {
    const user = await registerAndLogin(server);
    const post = await createVideo(server, user);
    await topUp(user, 10_000_000);
    const boost = (body: Record<string, unknown>) => user.api.post(`/api/v1/posts/${post}/boost`, { duration: 1, ...body });
    expect((await boost({ boostType: 'basic' })).body.data.payment.amount_charged).toBe(525_000);
    expect((await boost({ boostType: 'premium', budget: 2_000_000 })).body.data.payment.amount_charged).toBe(2_100_000);
    expect((await boost({ boostType: 'custom', budget: 700_000, targetAudience: { ageRange: { min: 18, max: 30 } } })).body.data.payment.amount_charged).toBe(
      735_000,
    );
    expect((await balance(user)).current_balance).toBe(10_000_000 - 525_000 - 2_100_000 - 735_000);
  });

  it('should let only one of two concurrent boosts spend the same money', async () => {
    const user = await registerAndLogin(server);
    const post = await createVideo(server, user);
    await topUp(user, 1_000_000);
    const results = await Promise.all([1, 2].map(() => user.api.post(`/api/v1/posts/${post}/boost`, { boostType: 'basic', duration: 1 })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 402]);
    expect((await balance(user)).current_balance).toBe(1_000_000 - 525_000);
  });

  it('should answer concurrent requests with one Idempotency-Key with one campaign', async () => {
    const user = await registerAndLogin(server);
    const post = await createVideo(server, user);
    await topUp(user, 5_000_000);
    const results = await Promise.all(
      [1, 2, 3].map(() => user.api.post(`/api/v1/posts/${post}/boost`, { boostType: 'basic', duration: 1 }, idem('same-time'))),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(new Set(results.map((r) => r.body.data.campaign_id)).size).toBe(1);
    expect((await balance(user)).current_balance).toBe(5_000_000 - 525_000);
  });

  it('should replay a boost with the same Idempotency-Key once', async () => {
    const user = await registerAndLogin(server);
    const post = await createVideo(server, user);
    await topUp(user, 2_000_000);
    const body = { boostType: 'basic', duration: 3 };
    const first = await user.api.post(`/api/v1/posts/${post}/boost`, body, idem('boost-1'));
    const second = await user.api.post(`/api/v1/posts/${post}/boost`, body, idem('boost-1'));
    expect(second.status).toBe(201);
    expect(second.body.data.campaign_id).toBe(first.body.data.campaign_id);
    expect((await balance(user)).current_balance).toBe(2_000_000 - 525_000);
  });
});

describe('POST /api/v1/payments/process', () => {
  async function campaignOf(user: TestUser): Promise<string> {
    const own = await createVideo(server, user);
    const est = await estimate(user, own);
    const res = await user.api.post('/api/v1/campaigns/create', createBody(est.estimation_id, own), idem());
    return res.body.data.campaign_id;
  }
  const body = (campaignId: string, extra: Record<string, unknown> = {}) => ({
    campaign_id: campaignId,
    payment_method: 'card',
    amount: 525_000,
    currency: 'VND',
    payment_details: { card_token: 'tok_visa', billing_address: { country: 'VN', city: 'Hà Nội' } },
    ...extra,
  });

  describe('refused payments', () => {
    let user: TestUser;
    let id: string;
    let theirs: string;
    beforeAll(async () => {
      user = await registerAndLogin(server);
      id = await campaignOf(user);
      theirs = await campaignOf(other);
    });
    const pay = (b: unknown) => user.api.post('/api/v1/payments/process', b);

    it('should fail with 401 without a token', async () => {
      expectErrorEnvelope(await new ApiClient(server.url).post('/api/v1/payments/process', body(id)), 401);
    });

    it('should fail with 400 unsupported_currency with another currency', async () => {
      expectErrorEnvelope(await pay(body(id, { currency: 'USD' })), 400, 'payment.error.unsupported_currency');
    });

    it.each([
      ['a negative amount', { amount: -5 }],
      ['an unknown payment method', { payment_method: 'cheque' }],
    ])('should fail with 400 validation.error with %s', async (_case, extra) => {
      expectErrorEnvelope(await pay(body(id, extra)), 400, 'validation.error');
    });

    it('should fail with 400 missing_token for a card payment without a token', async () => {
      expectErrorEnvelope(await pay(body(id, { payment_details: {} })), 400, 'payment.error.missing_token');
    });

    it('should fail with 400 raw_card_data with a card number field', async () => {
      expectErrorEnvelope(
        await pay(body(id, { payment_details: { card_token: 'tok_x', card_number: '4111111111111111' } })),
        400,
        'payment.error.raw_card_data',
      );
    });

    it('should fail with 400 raw_card_data with a card number as the token', async () => {
      expectErrorEnvelope(await pay(body(id, { payment_details: { card_token: '4012888888881881' } })), 400, 'payment.error.raw_card_data');
    });

    it('should fail with 402 declined when the provider declines', async () => {
      expectErrorEnvelope(await pay(body(id, { payment_details: { card_token: 'tok_decline' } })), 402, 'payment.error.declined');
    });

    it("should fail with 403 for another user's campaign", async () => {
      expectErrorEnvelope(await pay(body(theirs)), 403, 'campaign.error.forbidden');
    });

    it('should fail with 404 for an unknown campaign', async () => {
      expectErrorEnvelope(await pay(body('00000000-0000-4000-8000-000000000000')), 404, 'campaign.error.not_found');
    });

    it('should fail with 409 invalid_state for a completed campaign', async () => {
      await server.service.app.database.rows(sql`update campaigns set status = 'completed' where id = ${id}`);
      expectErrorEnvelope(await pay(body(id)), 409, 'campaign.error.invalid_state');
    });

    it('should leave the budget untouched by refused payments', async () => {
      const campaign = (await user.api.get(`/api/v1/campaigns/${id}`)).body.data;
      expect(campaign.budget.amount).toBe(1_000_000);
    });
  });

  it('should add budget to a running campaign, answering without success or message', async () => {
    const user = await registerAndLogin(server);
    const id = await campaignOf(user);
    const res = await user.api.post('/api/v1/payments/process', body(id));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data).toMatchObject({
      status: 'completed',
      amount_charged: 525_000,
      payment_method: 'card',
      campaign_status: 'active',
      receipt: { email_sent: false },
    });
    expect(typeof res.body.data.transaction_id).toBe('string');
    expect(typeof res.body.data.receipt.id).toBe('string');
    expect(res.body.data.receipt.url).toContain(res.body.data.transaction_id);
    const campaign = (await user.api.get(`/api/v1/campaigns/${id}`)).body.data;
    // 525,000 charged = 500,000 budget + 25,000 fee.
    expect(campaign.budget.amount).toBe(1_500_000);
    expect(campaign.platform_fee).toBe(75_000);
  });

  it('should pay from the balance, honour Idempotency-Key, and fail with 402 when short', async () => {
    const user = await registerAndLogin(server);
    const id = await campaignOf(user);
    await topUp(user, 600_000);
    const payBody = body(id, { payment_method: 'balance', payment_details: undefined });
    const first = await user.api.post('/api/v1/payments/process', payBody, idem('pay-1'));
    const again = await user.api.post('/api/v1/payments/process', payBody, idem('pay-1'));
    expect(first.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await balance(user)).current_balance).toBe(75_000);
    expectErrorEnvelope(await user.api.post('/api/v1/payments/process', { ...payBody, amount: 1 }, idem('pay-1')), 409, 'idempotency.error.key_reused');
    const before = await moneyRows(server, user.userId);
    expectErrorEnvelope(await user.api.post('/api/v1/payments/process', payBody), 402, 'payment.error.insufficient_funds');
    expect(await moneyRows(server, user.userId)).toEqual(before);
  });
});
