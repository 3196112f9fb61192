// Balance (ledger, top-up), boost and /payments/process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { bootServer, type TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { createBody, createVideo, estimate, idem, moneyRows, topUp } from './fixtures.js';

let server: TestServer;
let other: TestUser;
let otherVideo: string;
beforeAll(async () => {
  server = await bootServer();
  other = await registerAndLogin(server);
  otherVideo = await createVideo(server, other);
});
afterAll(async () => {
  await server?.close();
});

const balance = async (user: TestUser) => (await user.api.get('/api/v1/users/balance')).body.data;

describe('GET /api/v1/users/balance and POST /api/v1/users/balance/top-up', () => {
  it('starts empty and adds each top-up as a ledger movement', async () => {
    const user = await registerAndLogin(server);
    const empty = await user.api.get('/api/v1/users/balance');
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual({
      current_balance: 0, currency: 'VND', pending_amount: 0, last_updated: null, transactions_count: 0,
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

  it('replays a top-up with the same key once; 409 for another body', async () => {
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

  it('refuses bad top-ups and leaves the balance untouched', async () => {
    const user = await registerAndLogin(server);
    const post = (body: unknown) => user.api.post('/api/v1/users/balance/top-up', body, idem());
    expectErrorEnvelope(await post({ amount: -100, payment_token: 'tok_visa' }), 400, 'validation.error');
    expectErrorEnvelope(await post({ amount: 1.5, payment_token: 'tok_visa' }), 400, 'validation.error');
    expectErrorEnvelope(await post({ amount: 100 }), 400, 'validation.error');
    expectErrorEnvelope(await post({ amount: 100, payment_token: 'tok_visa', method: 'balance' }), 400, 'validation.error');
    expectErrorEnvelope(await post({ amount: 100, payment_token: 'tok_visa', currency: 'USD' }), 400, 'payment.error.unsupported_currency');
    expectErrorEnvelope(await post({ amount: 100, payment_token: 'tok_visa', card_number: '4111111111111111' }), 400, 'payment.error.raw_card_data');
    expectErrorEnvelope(await post({ amount: 100, payment_token: '378282246310005' }), 400, 'payment.error.raw_card_data');
    expectErrorEnvelope(await post({ amount: 100, payment_token: 'tok_decline' }), 402, 'payment.error.declined');
    expectErrorEnvelope(await post({ amount: 100, payment_token: 'tok_insufficient' }), 402, 'payment.error.insufficient_funds');
    expect(await moneyRows(server, user.userId)).toEqual({ campaigns: 0, payments: 0, ledger: 0, keys: 0 });
    expectErrorEnvelope(await new ApiClient(server.url).get('/api/v1/users/balance'), 401);
  });
});

describe('POST /api/v1/posts/:postId/boost', () => {
  it('boosts with a preset, paid from the balance with the 5% fee', async () => {
    const user = await registerAndLogin(server);
    const post = await createVideo(server, user);
    await topUp(user, 3_000_000);
    const res = await user.api.post(`/api/v1/posts/${post}/boost`, {
      boostType: 'Standard', duration: 7,
      targetAudience: { location: ['Hà Nội', 'ho chi minh city', 'vn-da-nang'], ageRange: '25-45', interests: ['apartments'] },
    });
    expect(res.status).toBe(201);
    const d = res.body.data;
    expect(d).toMatchObject({
      post_id: post, boost_type: 'standard', status: 'active', duration_days: 7,
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

  it('knows the three presets and custom budgets', async () => {
    const user = await registerAndLogin(server);
    const post = await createVideo(server, user);
    await topUp(user, 10_000_000);
    const boost = (body: Record<string, unknown>) => user.api.post(`/api/v1/posts/${post}/boost`, { duration: 1, ...body });
    expect((await boost({ boostType: 'basic' })).body.data.payment.amount_charged).toBe(525_000);
    expect((await boost({ boostType: 'premium', budget: 2_000_000 })).body.data.payment.amount_charged).toBe(2_100_000);
    expect((await boost({ boostType: 'custom', budget: 700_000, targetAudience: { ageRange: { min: 18, max: 30 } } })).body.data.payment.amount_charged).toBe(735_000);
    expectErrorEnvelope(await boost({ boostType: 'premium', budget: 1_000_000 }), 400, 'campaign.error.preset_mismatch');
    expectErrorEnvelope(await boost({ boostType: 'custom' }), 400, 'campaign.error.budget_required');
    expect((await balance(user)).current_balance).toBe(10_000_000 - 525_000 - 2_100_000 - 735_000);
  });

  it('answers 402 with nothing written when the balance is short', async () => {
    const user = await registerAndLogin(server);
    const post = await createVideo(server, user);
    await topUp(user, 1_000_000);
    const before = await moneyRows(server, user.userId);
    // Standard costs 1,050,000 with the fee: 50,000 short.
    expectErrorEnvelope(await user.api.post(`/api/v1/posts/${post}/boost`, { boostType: 'standard', duration: 3 }), 402, 'payment.error.insufficient_funds');
    expect(await moneyRows(server, user.userId)).toEqual(before);
    expect((await balance(user)).current_balance).toBe(1_000_000);
  });

  it('refuses bad input, other users\' posts and unknown posts', async () => {
    const user = await registerAndLogin(server);
    const post = await createVideo(server, user);
    await topUp(user, 5_000_000);
    const boost = (body: unknown, id = post) => user.api.post(`/api/v1/posts/${id}/boost`, body);
    expectErrorEnvelope(await boost({ boostType: 'basic', duration: 2 }), 400, 'validation.error');
    expectErrorEnvelope(await boost({ boostType: 'custom', duration: 3, budget: -10 }), 400, 'validation.error');
    expectErrorEnvelope(await boost({ duration: 3 }), 400, 'validation.error');
    expectErrorEnvelope(await boost({ boostType: 'basic', duration: 3, targetAudience: { ageRange: '40-20' } }), 400, 'validation.error');
    expectErrorEnvelope(await boost({ boostType: 'basic', duration: 3, targetAudience: { location: ['Atlantis'] } }), 400, 'targeting.error.unknown_location');
    expectErrorEnvelope(await boost({ boostType: 'basic', duration: 3, card_number: '4111 1111 1111 1111' }), 400, 'payment.error.raw_card_data');
    expectErrorEnvelope(await boost({ boostType: 'basic', duration: 3 }, otherVideo), 403, 'campaign.error.video_forbidden');
    expectErrorEnvelope(await boost({ boostType: 'basic', duration: 3 }, '00000000-0000-4000-8000-000000000000'), 404, 'campaign.error.video_not_found');
    expect((await balance(user)).current_balance).toBe(5_000_000);
    expectErrorEnvelope(await new ApiClient(server.url).post(`/api/v1/posts/${post}/boost`, { boostType: 'basic', duration: 3 }), 401);
  });

  it('lets only one of two concurrent boosts spend the same money', async () => {
    const user = await registerAndLogin(server);
    const post = await createVideo(server, user);
    await topUp(user, 1_000_000);
    const results = await Promise.all([1, 2].map(() => user.api.post(`/api/v1/posts/${post}/boost`, { boostType: 'basic', duration: 1 })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 402]);
    expect((await balance(user)).current_balance).toBe(1_000_000 - 525_000);
  });

  it('answers concurrent requests with one Idempotency-Key with one campaign', async () => {
    const user = await registerAndLogin(server);
    const post = await createVideo(server, user);
    await topUp(user, 5_000_000);
    const results = await Promise.all([1, 2, 3].map(() => user.api.post(`/api/v1/posts/${post}/boost`, { boostType: 'basic', duration: 1 }, idem('same-time'))));
    expect(results.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(new Set(results.map((r) => r.body.data.campaign_id)).size).toBe(1);
    expect((await balance(user)).current_balance).toBe(5_000_000 - 525_000);
  });

  it('replays a boost with the same Idempotency-Key once', async () => {
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
    campaign_id: campaignId, payment_method: 'card', amount: 525_000, currency: 'VND',
    payment_details: { card_token: 'tok_visa', billing_address: { country: 'VN', city: 'Hà Nội' } }, ...extra,
  });

  it('adds budget to a running campaign; the answer has no success or message', async () => {
    const user = await registerAndLogin(server);
    const id = await campaignOf(user);
    const res = await user.api.post('/api/v1/payments/process', body(id));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data).toMatchObject({ status: 'completed', amount_charged: 525_000, payment_method: 'card', campaign_status: 'active', receipt: { email_sent: false } });
    expect(typeof res.body.data.transaction_id).toBe('string');
    expect(typeof res.body.data.receipt.id).toBe('string');
    expect(res.body.data.receipt.url).toContain(res.body.data.transaction_id);
    const campaign = (await user.api.get(`/api/v1/campaigns/${id}`)).body.data;
    // 525,000 charged = 500,000 budget + 25,000 fee.
    expect(campaign.budget.amount).toBe(1_500_000);
    expect(campaign.platform_fee).toBe(75_000);
  });

  it('pays from the balance, honours Idempotency-Key, and refuses when short', async () => {
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

  it('refuses bad input, other users\' and ended campaigns', async () => {
    const user = await registerAndLogin(server);
    const id = await campaignOf(user);
    const theirs = await campaignOf(other);
    const pay = (b: unknown) => user.api.post('/api/v1/payments/process', b);
    expectErrorEnvelope(await pay(body(id, { currency: 'USD' })), 400, 'payment.error.unsupported_currency');
    expectErrorEnvelope(await pay(body(id, { amount: -5 })), 400, 'validation.error');
    expectErrorEnvelope(await pay(body(id, { payment_method: 'cheque' })), 400, 'validation.error');
    expectErrorEnvelope(await pay(body(id, { payment_details: {} })), 400, 'payment.error.missing_token');
    expectErrorEnvelope(await pay(body(id, { payment_details: { card_token: 'tok_x', card_number: '4111111111111111' } })), 400, 'payment.error.raw_card_data');
    expectErrorEnvelope(await pay(body(id, { payment_details: { card_token: '4012888888881881' } })), 400, 'payment.error.raw_card_data');
    expectErrorEnvelope(await pay(body(id, { payment_details: { card_token: 'tok_decline' } })), 402, 'payment.error.declined');
    expectErrorEnvelope(await pay(body(theirs)), 403, 'campaign.error.forbidden');
    expectErrorEnvelope(await pay(body('00000000-0000-4000-8000-000000000000')), 404, 'campaign.error.not_found');
    await server.service.app.database.rows(sql`update campaigns set status = 'completed' where id = ${id}`);
    expectErrorEnvelope(await pay(body(id)), 409, 'campaign.error.invalid_state');
    const campaign = (await user.api.get(`/api/v1/campaigns/${id}`)).body.data;
    expect(campaign.budget.amount).toBe(1_000_000);
    expectErrorEnvelope(await new ApiClient(server.url).post('/api/v1/payments/process', body(id)), 401);
  });
});
