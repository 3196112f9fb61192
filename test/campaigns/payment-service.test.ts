// PaymentService and CampaignService tested directly: built in the test from their repositories
// over a fresh database (test/helpers/domain.ts), with the sandbox provider, no HTTP server. The
// rules of money: a refused charge writes nothing, an Idempotency-Key serves one request (a replay
// answers the stored result, another body is 409, a failed request frees the key), receipts are
// their owner's, and a campaign paid from a short balance leaves no trace (402).
import { beforeAll, describe, expect, it } from 'vitest';
import { CampaignService } from '../../src/campaigns/service.js';
import { CampaignDelivery } from '../../src/campaigns/delivery.js';
import { totalWithFee } from '../../src/pricing/pricing.js';
import type { CreateCampaignBody } from '../../src/campaigns/schemas.js';
import { createPaymentProvider } from '../../src/payments/provider.js';
import { PaymentService } from '../../src/payments/service.js';
import { newId } from '../../src/shared/ids.js';
import { useTestDomain, type TestDomain } from '../helpers/domain.js';

const opened = useTestDomain();
let domain: TestDomain;
let payments: PaymentService;
let campaigns: CampaignService;

beforeAll(() => {
  domain = opened.current;
  const { app, repositories } = domain;
  payments = new PaymentService(
    app.database,
    app.config,
    repositories.payments,
    repositories.ledger,
    repositories.idempotencyKeys,
    createPaymentProvider(app.config),
  );
  const delivery = new CampaignDelivery(repositories.campaignDelivery, repositories.contents, app.events, app.log, () => new Date());
  campaigns = new CampaignService(
    app.database,
    app.config,
    repositories.campaigns,
    repositories.estimations,
    repositories.contents,
    payments,
    domain.notifications(),
    delivery,
    repositories.campaignDelivery,
    repositories.ledger,
  );
});

const topUp = (userId: string, amount: number, token = 'tok_visa', key?: string) =>
  payments.topUp(userId, { amount, payment_token: token, method: 'card' }, key);

const BUDGET = 1_000_000;

/** An estimation for a campaign on `videoId`, and the create body that buys it paid from the balance. */
async function campaignOrder(userId: string, videoId: string): Promise<CreateCampaignBody> {
  const estimation = await campaigns.estimate(userId, {
    video_id: videoId,
    budget: { amount: BUDGET, currency: 'VND' },
    duration_days: 7,
    targeting: { locations: [] },
  });
  return {
    estimation_id: estimation.estimation_id,
    video_id: videoId,
    campaign_config: { name: 'Launch', budget: { amount: BUDGET, currency: 'VND' }, duration_days: 7 },
    payment: { method: 'balance', amount: totalWithFee(BUDGET) },
  };
}

describe('PaymentService.receipt refusals', () => {
  it('answers 404 payment.error.not_found for a malformed id and for an unknown one', async () => {
    const user = await domain.createUser();
    await expect(payments.receipt(user.userId, 'not-an-id')).rejects.toMatchObject({ status: 404, code: 'payment.error.not_found' });
    await expect(payments.receipt(user.userId, newId())).rejects.toMatchObject({ status: 404, code: 'payment.error.not_found' });
  });

  it("answers 403 payment.error.forbidden for another user's payment, and the receipt to its owner", async () => {
    const [owner, other] = [await domain.createUser(), await domain.createUser()];
    const { data } = await topUp(owner.userId, 50_000);
    await expect(payments.receipt(other.userId, data.transaction_id)).rejects.toMatchObject({ status: 403, code: 'payment.error.forbidden' });
    expect(await payments.receipt(owner.userId, data.transaction_id)).toMatchObject({
      transaction_id: data.transaction_id,
      amount_charged: 50_000,
      purpose: 'top_up',
    });
  });
});

describe('PaymentService.topUp', () => {
  it('refuses with 402 payment.error.declined a declined token and records nothing', async () => {
    const user = await domain.createUser();
    await expect(topUp(user.userId, 10_000, 'tok_decline')).rejects.toMatchObject({ status: 402, code: 'payment.error.declined' });
    expect(await payments.balance(user.userId)).toMatchObject({ current_balance: 0, transactions_count: 0 });
  });

  it('refuses with 400 payment.error.unsupported_currency a currency other than VND', async () => {
    const user = await domain.createUser();
    await expect(payments.topUp(user.userId, { amount: 10_000, payment_token: 'tok_visa', method: 'card', currency: 'USD' }, undefined)).rejects.toMatchObject({
      status: 400,
      code: 'payment.error.unsupported_currency',
    });
  });

  it('refuses with 409 idempotency.error.key_reused the same key with another body, and charges nothing more', async () => {
    const user = await domain.createUser();
    await topUp(user.userId, 10_000, 'tok_visa', 'key-a');
    await expect(topUp(user.userId, 20_000, 'tok_visa', 'key-a')).rejects.toMatchObject({ status: 409, code: 'idempotency.error.key_reused' });
    expect((await payments.balance(user.userId)).current_balance).toBe(10_000);
  });

  it('answers a replay of the same key and body with the stored answer, charged once', async () => {
    const user = await domain.createUser();
    const first = await topUp(user.userId, 10_000, 'tok_visa', 'key-b');
    const again = await topUp(user.userId, 10_000, 'tok_visa', 'key-b');
    expect(first.replayed).toBe(false);
    expect(again.replayed).toBe(true);
    expect(again.data.transaction_id).toBe(first.data.transaction_id);
    expect(await payments.balance(user.userId)).toMatchObject({ current_balance: 10_000, transactions_count: 1 });
  });

  it('frees the key of a refused request: a retry with the same key and a good token is charged', async () => {
    const user = await domain.createUser();
    await expect(topUp(user.userId, 10_000, 'tok_decline', 'key-c')).rejects.toMatchObject({ status: 402 });
    const retried = await topUp(user.userId, 10_000, 'tok_visa', 'key-c');
    expect(retried.replayed).toBe(false);
    expect(retried.data.balance.current_balance).toBe(10_000);
  });

  it('keeps one key per user: the same key of another user is a request of its own', async () => {
    const [a, b] = [await domain.createUser(), await domain.createUser()];
    await topUp(a.userId, 10_000, 'tok_visa', 'shared-key');
    const other = await topUp(b.userId, 20_000, 'tok_visa', 'shared-key');
    expect(other.replayed).toBe(false);
    expect((await payments.balance(b.userId)).current_balance).toBe(20_000);
  });
});

describe('CampaignService.create paid from the balance', () => {
  it('refuses with 402 payment.error.insufficient_funds when the balance is short, and writes nothing', async () => {
    const user = await domain.createUser();
    const order = await campaignOrder(user.userId, await domain.createContent(user.userId));
    await topUp(user.userId, totalWithFee(BUDGET) - 1);
    await expect(campaigns.create(user.userId, order, undefined)).rejects.toMatchObject({ status: 402, code: 'payment.error.insufficient_funds' });
    expect((await campaigns.list(user.userId, { page: 1, per_page: 10 })).pagination.total).toBe(0);
    expect((await payments.balance(user.userId)).current_balance).toBe(totalWithFee(BUDGET) - 1);
    // The estimation was not used up: topped up, the same order goes through.
    await topUp(user.userId, 1);
    const created = await campaigns.create(user.userId, order, undefined);
    expect(created).toMatchObject({ status: 201, data: { status: 'active', payment: { amount_charged: totalWithFee(BUDGET), payment_method: 'balance' } } });
    expect((await payments.balance(user.userId)).current_balance).toBe(0);
  });

  it('refuses with 409 campaign.error.estimation_used a second campaign from one estimation, and debits once', async () => {
    const user = await domain.createUser();
    const order = await campaignOrder(user.userId, await domain.createContent(user.userId));
    await topUp(user.userId, 2 * totalWithFee(BUDGET));
    await campaigns.create(user.userId, order, undefined);
    await expect(campaigns.create(user.userId, order, undefined)).rejects.toMatchObject({ status: 409, code: 'campaign.error.estimation_used' });
    expect((await payments.balance(user.userId)).current_balance).toBe(totalWithFee(BUDGET));
    expect((await campaigns.list(user.userId, { page: 1, per_page: 10 })).pagination.total).toBe(1);
  });

  it("refuses with 403 campaign.error.video_forbidden to promote another user's video", async () => {
    const [owner, other] = [await domain.createUser(), await domain.createUser()];
    const videoId = await domain.createContent(owner.userId);
    await expect(campaignOrder(other.userId, videoId)).rejects.toMatchObject({ status: 403, code: 'campaign.error.video_forbidden' });
  });
});
