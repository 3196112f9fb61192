// Campaigns (SPEC §4.8, CONTRACT §6 and §12): targeting lookups, estimations, buying a campaign
// from an estimation, the one-step boost, paying extra budget in, pausing and resuming, and
// completing campaigns whose duration has ended. Every purchase runs in one transaction
// (Idempotency-Key claim, locks, campaign row, charge, payment row, ledger row), so a refused
// payment leaves no campaign and no balance movement behind. Decisions are in docs/campaigns.md.
import type { Config } from '../config.js';
import type { DatabaseHandle, Queryable } from '../db/client.js';
import type { ContentRepository } from '../content/index.js';
import { findManageableContent } from '../content/index.js';
import type { ServiceAnswer } from '../payments/index.js';
import type { PaymentService } from '../payments/index.js';
import { badRequest, conflict, forbidden, notFound, unprocessable } from '../shared/errors.js';
import { isUuid, newId } from '../shared/ids.js';
import { searchLocations, SUPPORTED_COUNTRIES } from '../targeting/index.js';
import { suggestedBudget } from '../targeting/index.js';
import type { CampaignRepository, CampaignRow } from './campaign-repository.js';
import { assertCampaignCurrency } from '../pricing/index.js';
import type { EstimationRepository } from './estimation-repository.js';
import { estimateCampaign } from './estimate-model.js';
import type { BoostResult, CampaignCreated, CampaignPage, CampaignView, EstimationView, PaymentResult, TargetLocationView } from './response-schemas.js';
import { BUDGET_PRESETS, CAMPAIGN_CURRENCY, PLATFORM_FEE_PERCENT, platformFee, totalWithFee, type BudgetPreset } from '../pricing/index.js';
import type { BoostBody, CreateCampaignBody, EstimateBody, ListCampaignsQuery, LocationsQuery, ProcessPaymentBody } from './schemas.js';
import { normaliseAudience, resolveLocationNames, resolveLocationRefs, type StoredTargeting } from './targeting.js';
import type { NotificationService } from '../notifications/index.js';
import type { LedgerRepository } from '../payments/index.js';
import { cpmOf, type CampaignDelivery } from './delivery.js';
import type { DeliveryRepository } from './delivery-repository.js';
import { deliveryView, noViewFigures, spentFor, type CampaignViewFiguresPort, type DeliveryView } from './delivery-view.js';

const ESTIMATION_TTL_MS = 24 * 3600 * 1000;
const DAY_MS = 86_400_000;

interface UsableEstimation {
  id: string;
  budget: number;
  durationDays: number;
  targeting: StoredTargeting;
  result: EstimationView;
}

interface StateChange {
  campaign: CampaignView;
  message: string;
}

const campaignNotFound = (field: string) => notFound('campaign.error.not_found', 'No such campaign', { field, constraint: 'an existing campaign' });
const campaignForbidden = () => forbidden('campaign.error.forbidden', 'This campaign belongs to another user');
const invalidTransition = (from: string, action: string) =>
  conflict('campaign.error.invalid_transition', `A ${from} campaign cannot be ${action}`, { field: 'status', constraint: `not ${from}` });
const hasEnded = (row: CampaignRow, at: Date) => row.ends_at.getTime() <= at.getTime();

/** The caller's campaign as `load` finds it (plain or locked): 404 unknown, 403 another user's. */
async function ownCampaign(userId: string, campaignId: string, field: string, load: (id: string) => Promise<CampaignRow | undefined>): Promise<CampaignRow> {
  if (!isUuid(campaignId)) throw campaignNotFound(field);
  const row = await load(campaignId);
  if (!row) throw campaignNotFound(field);
  if (row.user_id !== userId) throw campaignForbidden();
  return row;
}

function amountMismatch(expected: number, field: string) {
  return badRequest('payment.error.amount_mismatch', `The amount must be the budget plus the 5% platform fee: ${expected}`, {
    field,
    constraint: `equals ${expected}`,
  });
}

/**
 * The budget a boost buys: `boostType` basic / standard / premium picks the SPEC §4.8 preset (a
 * `budget` sent with a preset must equal it); any other boostType (e.g. `custom`) needs `budget`.
 */
function boostBudget(boostType: string, budget: number | undefined): number {
  const preset = boostType.toLowerCase() as BudgetPreset;
  if (Object.hasOwn(BUDGET_PRESETS, preset)) {
    const amount = BUDGET_PRESETS[preset];
    if (budget !== undefined && budget !== amount) {
      throw badRequest('campaign.error.preset_mismatch', `The ${preset} preset is ${amount} VND`, {
        field: 'budget',
        constraint: `equals ${amount} or omitted`,
      });
    }
    return amount;
  }
  if (budget === undefined) {
    throw badRequest('campaign.error.budget_required', 'A custom boost needs a budget (or use boostType basic, standard or premium)', {
      field: 'budget',
      constraint: 'required',
    });
  }
  return budget;
}

/** Splits a total that includes the fee into budget + fee (they always add up to the total). */
function splitTotal(total: number): { budget: number; fee: number } {
  const fee = Math.round((total * PLATFORM_FEE_PERCENT) / (100 + PLATFORM_FEE_PERCENT));
  return { budget: total - fee, fee };
}

export class CampaignService {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly config: Config,
    private readonly campaigns: CampaignRepository,
    private readonly estimations: EstimationRepository,
    private readonly contents: ContentRepository,
    private readonly payments: PaymentService,
    private readonly notifications: NotificationService,
    private readonly delivery: CampaignDelivery,
    private readonly deliveries: DeliveryRepository,
    private readonly ledger: LedgerRepository,
    private readonly viewFigures: CampaignViewFiguresPort = noViewFigures,
  ) {
    delivery.attach({ completeIfSpent: (id) => this.completeIfSpent(id), deliveryOf: (ids) => this.deliveryOf(ids) });
  }

  /** Places to target matching the query, with a suggested budget each. */
  targetLocations(query: LocationsQuery): { locations: TargetLocationView[] } {
    if (!(SUPPORTED_COUNTRIES as readonly string[]).includes(query.country)) {
      throw badRequest('targeting.error.unsupported_country', `Only ${SUPPORTED_COUNTRIES.join(', ')} is supported`, {
        field: 'country',
        constraint: SUPPORTED_COUNTRIES.join(', '),
      });
    }
    const found = searchLocations({ query: query.query, type: query.type, limit: query.limit });
    return {
      locations: found.map((l) => ({
        id: l.id,
        name: l.name,
        type: l.type,
        population: l.population,
        suggested_budget: suggestedBudget(l.population),
        parent_id: l.parentId,
        country: query.country,
      })),
    };
  }

  /** Prices a campaign for one of the caller's videos and stores the estimate for ESTIMATION_TTL_MS. */
  async estimate(userId: string, body: EstimateBody): Promise<EstimationView> {
    assertCampaignCurrency(body.budget.currency, 'budget.currency');
    const targeting = resolveLocationRefs(body.targeting.locations, 'targeting.locations');
    const audience = normaliseAudience(body.targeting.audience);
    await this.assertOwnVideo(this.database, userId, body.video_id);
    const start = new Date();
    const estimate = estimateCampaign({ budget: body.budget.amount, durationDays: body.duration_days, population: targeting.population, audience, start });
    const id = newId();
    const expiresAt = new Date(start.getTime() + ESTIMATION_TTL_MS);
    const stored: StoredTargeting = { locations: targeting.locations, audience, population: targeting.population };
    const view: EstimationView = { estimation_id: id, video_id: body.video_id, ...estimate, expires_at: expiresAt.toISOString() };
    await this.estimations.insert({
      id,
      userId,
      videoId: body.video_id,
      budget: body.budget.amount,
      currency: CAMPAIGN_CURRENCY,
      durationDays: body.duration_days,
      targeting: stored,
      result: view,
      expiresAt,
    });
    return view;
  }

  /** Buys a campaign from an estimation; it starts at once. Without an Idempotency-Key a retry still cannot pay twice, since an estimation buys one campaign. */
  async create(userId: string, body: CreateCampaignBody, idempotencyKey: string | undefined): Promise<ServiceAnswer<CampaignCreated>> {
    const config = body.campaign_config;
    // Checks that need no storage come first.
    assertCampaignCurrency(config.budget.currency, 'campaign_config.budget.currency');
    const budget = config.budget.amount;
    const fee = platformFee(budget);
    const total = totalWithFee(budget);
    if (body.payment.amount !== total) throw amountMismatch(total, 'payment.amount');
    const chosenLocations = config.targeting?.locations ? resolveLocationNames(config.targeting.locations, 'campaign_config.targeting.locations', false) : null;

    return this.changingDelivery(() =>
      this.database.transaction((tx) =>
        this.payments.withIdempotency<CampaignCreated>(tx, { userId, key: idempotencyKey, scope: 'campaigns.create', requestBody: body }, async () => {
          const estimation = await this.takeEstimation(tx, userId, body.estimation_id, body.video_id);
          if (estimation.budget !== budget) {
            throw unprocessable('campaign.error.estimation_mismatch', `The budget differs from the estimation's (${estimation.budget})`, {
              field: 'campaign_config.budget.amount',
              constraint: `equals ${estimation.budget}`,
            });
          }
          if (estimation.durationDays !== config.duration_days) {
            throw unprocessable('campaign.error.estimation_mismatch', `The duration differs from the estimation's (${estimation.durationDays})`, {
              field: 'campaign_config.duration_days',
              constraint: `equals ${estimation.durationDays}`,
            });
          }
          await this.assertOwnVideo(tx, userId, body.video_id);

          const targeting: StoredTargeting = {
            locations: chosenLocations?.locations ?? estimation.targeting.locations,
            audience: config.targeting?.audience ? normaliseAudience(config.targeting.audience) : estimation.targeting.audience,
            population: chosenLocations?.population ?? estimation.targeting.population,
          };
          const launchTime = new Date();
          const campaign = await this.campaigns.in(tx).insert({
            userId,
            videoId: body.video_id,
            estimationId: estimation.id,
            name: config.name,
            source: 'create',
            boostType: null,
            budget,
            platformFee: fee,
            currency: CAMPAIGN_CURRENCY,
            durationDays: config.duration_days,
            targeting,
            estimate: { performance: estimation.result.performance, metrics: estimation.result.metrics },
            launchTime,
            endsAt: new Date(launchTime.getTime() + config.duration_days * DAY_MS),
          });
          const payment = await this.payments.takePayment(tx, {
            userId,
            method: body.payment.method,
            token: body.payment.payment_token ?? null,
            amount: total,
            budgetAmount: budget,
            platformFee: fee,
            currency: CAMPAIGN_CURRENCY,
            purpose: 'campaign_create',
            campaignId: campaign.id,
            idempotencyKey,
            description: `Campaign: ${config.name}`,
          });
          await this.estimations.in(tx).markUsed(estimation.id);

          const view = this.view(campaign);
          const data: CampaignCreated = {
            campaign_id: campaign.id,
            status: view.status,
            launch_time: view.launch_time,
            end_time: view.end_time,
            tracking_url: view.tracking_url,
            payment: this.payments.paymentLinkView(payment),
          };
          return { status: 201, data };
        }),
      ),
    );
  }

  async list(userId: string, query: ListCampaignsQuery): Promise<CampaignPage> {
    const { rows, total } = await this.campaigns.listByUser(userId, {
      status: query.status,
      limit: query.per_page,
      offset: (query.page - 1) * query.per_page,
    });
    const delivered = await this.deliveryOf(
      rows.map((r) => r.id),
      rows,
    );
    return {
      campaigns: rows.map((r) => this.view(r, delivered.get(r.id))),
      pagination: { page: query.page, per_page: query.per_page, total, total_pages: Math.ceil(total / query.per_page) },
    };
  }

  /** One of the caller's campaigns: 404 unknown, 403 another user's. */
  async get(userId: string, campaignId: string): Promise<CampaignView> {
    const row = await ownCampaign(userId, campaignId, 'id', (id) => this.campaigns.findById(id));
    return this.view(row, (await this.deliveryOf([row.id], [row])).get(row.id));
  }

  /** The `delivery` of each campaign: its own counters and the views module's figures. */
  async deliveryOf(campaignIds: string[], known: CampaignRow[] = []): Promise<Map<string, DeliveryView>> {
    if (!campaignIds.length) return new Map();
    const rows = new Map(known.map((r) => [r.id, r]));
    for (const id of campaignIds) {
      if (!rows.has(id)) {
        const row = await this.campaigns.findById(id);
        if (row) rows.set(id, row);
      }
    }
    const [counters, figures] = await Promise.all([this.deliveries.counters(campaignIds), this.viewFigures(campaignIds)]);
    return new Map([...rows.values()].map((r) => [r.id, deliveryView(r.budget_amount, counters.get(r.id), figures.get(r.id))]));
  }

  pause(userId: string, campaignId: string): Promise<StateChange> {
    return this.changeState(userId, campaignId, 'pause');
  }

  resume(userId: string, campaignId: string): Promise<StateChange> {
    return this.changeState(userId, campaignId, 'resume');
  }

  /**
   * CONTRACT §12: active → paused (pause), paused → active (resume). Pausing does not extend the
   * end: a campaign runs for its duration from launch. A pause or resume on a campaign already
   * past its end completes it instead and says so; every other move is 409.
   */
  private async changeState(userId: string, campaignId: string, action: 'pause' | 'resume'): Promise<StateChange> {
    const change = await this.changeStateIn(userId, campaignId, action);
    // This node stops (or starts) showing it at once; the others with their next roster.
    this.delivery.invalidate();
    const delivery = (await this.deliveryOf([change.campaign.campaign_id])).get(change.campaign.campaign_id);
    return delivery ? { ...change, campaign: { ...change.campaign, delivery } } : change;
  }

  private changeStateIn(userId: string, campaignId: string, action: 'pause' | 'resume'): Promise<StateChange> {
    return this.database.transaction(async (tx) => {
      const campaigns = this.campaigns.in(tx);
      const row = await this.lockOwnCampaign(campaigns, userId, campaignId, 'id');
      const at = new Date();
      if (row.status === 'completed') throw invalidTransition('completed', action === 'pause' ? 'paused' : 'resumed');
      if (hasEnded(row, at)) {
        const completed = (await this.finish(tx, row, 'ended', at)) ?? row;
        return { campaign: this.view(completed), message: 'The campaign had reached its end and is now completed' };
      }
      if (action === 'pause') {
        if (row.status !== 'active') throw invalidTransition(row.status, 'paused');
        return { campaign: this.view(await campaigns.setStatus(row.id, 'paused', at)), message: 'Campaign paused' };
      }
      if (row.status !== 'paused') throw invalidTransition(row.status, 'resumed');
      return { campaign: this.view(await campaigns.setStatus(row.id, 'active', at)), message: 'Campaign resumed' };
    });
  }

  /**
   * The one-tap shortcut: estimates, creates and pays a campaign for one of the caller's posts in
   * a single step, paid from the account balance (budget + 5% fee; 402
   * `payment.error.insufficient_funds` when the balance is short, nothing written). Locations are
   * names or ids (none: the whole country).
   */
  async boost(userId: string, postId: string, body: BoostBody, idempotencyKey: string | undefined): Promise<ServiceAnswer<BoostResult>> {
    const budget = boostBudget(body.boostType, body.budget);
    const fee = platformFee(budget);
    const total = totalWithFee(budget);
    const boostType = body.boostType.toLowerCase();
    const targeting = resolveLocationNames(body.targetAudience?.location ?? [], 'targetAudience.location', true);
    const audience = normaliseAudience({ age_range: body.targetAudience?.ageRange, interests: body.targetAudience?.interests });

    const outcome = await this.changingDelivery(() =>
      this.database.transaction((tx) =>
        this.payments.withIdempotency<BoostResult>(tx, { userId, key: idempotencyKey, scope: `posts.boost:${postId}`, requestBody: body }, async () => {
          await this.assertOwnVideo(tx, userId, postId, 'postId');
          const launch = new Date();
          const estimate = estimateCampaign({ budget, durationDays: body.duration, population: targeting.population, audience, start: launch });
          const campaign = await this.campaigns.in(tx).insert({
            userId,
            videoId: postId,
            estimationId: null,
            name: `Boost (${boostType}) ${launch.toISOString().slice(0, 10)}`,
            source: 'boost',
            boostType,
            budget,
            platformFee: fee,
            currency: CAMPAIGN_CURRENCY,
            durationDays: body.duration,
            targeting: { locations: targeting.locations, audience, population: targeting.population },
            estimate: { performance: estimate.performance, metrics: estimate.metrics },
            launchTime: launch,
            endsAt: new Date(launch.getTime() + body.duration * DAY_MS),
          });
          const payment = await this.payments.takePayment(tx, {
            userId,
            method: 'balance',
            token: null,
            amount: total,
            budgetAmount: budget,
            platformFee: fee,
            currency: CAMPAIGN_CURRENCY,
            purpose: 'boost',
            campaignId: campaign.id,
            idempotencyKey,
            description: `Boost of post ${postId}`,
          });
          const view = this.view(campaign);
          const data: BoostResult = {
            campaign_id: campaign.id,
            post_id: postId,
            boost_type: boostType,
            status: view.status,
            launch_time: view.launch_time,
            end_time: view.end_time,
            duration_days: view.duration_days,
            tracking_url: view.tracking_url,
            budget: { amount: budget, platform_fee: fee, total_amount: total, currency: CAMPAIGN_CURRENCY },
            estimate: { performance: estimate.performance, metrics: estimate.metrics, timeline: estimate.timeline },
            payment: this.payments.paymentLinkView(payment),
            // Filled in after commit with the balance as it is then.
            balance: { current_balance: 0, currency: CAMPAIGN_CURRENCY },
          };
          return { status: 201, data };
        }),
      ),
    );
    const balance = await this.payments.balance(userId);
    return { ...outcome, data: { ...outcome.data, balance: { current_balance: balance.current_balance, currency: CAMPAIGN_CURRENCY } } };
  }

  /**
   * Pays extra budget into a running campaign the caller owns. `amount` is the total charged, the
   * 5% platform fee included: the budget grows by amount / 1.05 (1,050,000 charged → 1,000,000
   * budget + 50,000 fee). A completed or ended campaign takes no more money (409).
   */
  async payIntoCampaign(userId: string, body: ProcessPaymentBody, idempotencyKey: string | undefined): Promise<ServiceAnswer<PaymentResult>> {
    assertCampaignCurrency(body.currency, 'currency');
    const { budget, fee } = splitTotal(body.amount);
    return this.changingDelivery(() =>
      this.database.transaction((tx) =>
        this.payments.withIdempotency<PaymentResult>(tx, { userId, key: idempotencyKey, scope: 'payments.process', requestBody: body }, async () => {
          const campaigns = this.campaigns.in(tx);
          const campaign = await this.lockOwnCampaign(campaigns, userId, body.campaign_id, 'campaign_id');
          if (campaign.status === 'completed' || hasEnded(campaign, new Date())) {
            throw conflict('campaign.error.invalid_state', 'This campaign has ended and takes no more payments', {
              field: 'campaign_id',
              constraint: 'active or paused',
            });
          }
          const payment = await this.payments.takePayment(tx, {
            userId,
            method: body.payment_method,
            token: body.payment_details?.card_token ?? null,
            amount: body.amount,
            budgetAmount: budget,
            platformFee: fee,
            currency: CAMPAIGN_CURRENCY,
            purpose: 'campaign_budget',
            campaignId: campaign.id,
            idempotencyKey,
            description: `Campaign budget: ${campaign.name}`,
            tokenField: 'payment_details.card_token',
          });
          const updated = await campaigns.addBudget(campaign.id, budget, fee);
          return { status: 200, data: { ...this.payments.paymentView(payment), campaign_status: updated.status } };
        }),
      ),
    );
  }

  /**
   * Completes every active or paused campaign whose end is at or before `at`, each with its
   * refund. Idempotent (a completed campaign is not touched again) and catches up after downtime
   * by itself, since it takes everything due, however late.
   */
  async completeDue(at: Date): Promise<string[]> {
    const completed = await this.database.transaction(async (tx) => {
      const due = await this.campaigns.in(tx).lockDue(at);
      const done: string[] = [];
      for (const row of due) if (await this.finish(tx, row, 'ended', at)) done.push(row.id);
      return done;
    });
    if (completed.length) {
      this.delivery.invalidate();
      this.notifications.deliverSoon();
    }
    return completed;
  }

  /**
   * Completes a campaign early when its budget buys no further impression and no node holds
   * any (CONTRACT §26 `budget_spent`); nothing otherwise.
   */
  async completeIfSpent(campaignId: string): Promise<void> {
    const done = await this.database.transaction(async (tx) => {
      const row = await this.campaigns.in(tx).findByIdForUpdate(campaignId);
      if (!row || row.status === 'completed') return false;
      const counters = (await this.deliveries.in(tx).counters([campaignId], true)).get(campaignId);
      if (!counters || Number(counters.held) > 0) return false;
      if (spentFor(Number(counters.impressions) + 1, Number(counters.cpm)) <= row.budget_amount) return false;
      return (await this.finish(tx, row, 'budget_spent', this.delivery.now())) !== null;
    });
    if (done) {
      this.delivery.invalidate();
      this.notifications.deliverSoon();
    }
  }

  /**
   * Completes a locked campaign, once: its spending is frozen (open leases closed: what they
   * served and did not record is never charged), the unspent budget goes back to the owner's
   * balance as one `refund` ledger entry whatever the payment method, and the owner is notified,
   * all in the caller's transaction. Null when it was completed already.
   */
  private async finish(tx: Queryable, row: CampaignRow, reason: 'ended' | 'budget_spent', at: Date): Promise<CampaignRow | null> {
    const completed = await this.campaigns.in(tx).complete(row.id, reason, at);
    if (!completed) return null;
    const deliveries = this.deliveries.in(tx);
    await deliveries.ensure(row.id, cpmOf(row));
    const counters = (await deliveries.counters([row.id], true)).get(row.id)!;
    const refund = Math.max(0, completed.budget_amount - spentFor(Number(counters.impressions), Number(counters.cpm)));
    await deliveries.settle(row.id, refund, at);
    if (refund > 0) {
      const ledger = this.ledger.in(tx);
      await ledger.lockUser(row.user_id);
      await ledger.append({
        userId: row.user_id,
        kind: 'refund',
        amount: refund,
        currency: completed.currency,
        campaignId: row.id,
        description: `Unspent budget: ${completed.name}`,
      });
    }
    await this.notifications.notify(tx, {
      userId: row.user_id,
      type: 'campaign.completed',
      actorId: null,
      subject: { type: 'campaign', id: row.id },
      data: { name: row.name, video_id: row.video_id, completion_reason: reason, refunded: refund },
      dedupeKey: `campaign.completed:${row.id}`,
    });
    return completed;
  }

  /** A change of what may be shown or spent: this node's roster is read again before the next page. */
  private async changingDelivery<T>(change: () => Promise<T>): Promise<T> {
    try {
      return await change();
    } finally {
      this.delivery.invalidate();
    }
  }

  /** The caller's campaign, locked for a change: 404 unknown, 403 another user's. */
  private lockOwnCampaign(campaigns: CampaignRepository, userId: string, campaignId: string, field: string): Promise<CampaignRow> {
    return ownCampaign(userId, campaignId, field, (id) => campaigns.findByIdForUpdate(id));
  }

  /** The post a campaign promotes: an existing, non-deleted content item owned by the caller. */
  private async assertOwnVideo(db: Queryable, userId: string, videoId: string, field = 'video_id'): Promise<void> {
    await findManageableContent(this.contents.in(db), userId, videoId, {
      missing: () => notFound('campaign.error.video_not_found', 'No such video', { field, constraint: 'an existing content id' }),
      notAllowed: () => forbidden('campaign.error.video_forbidden', 'Only the owner of a video can promote it'),
    });
  }

  /**
   * Loads and locks an estimation for a campaign: 404 unknown, 403 another user's, 409 already
   * used by a campaign, 422 expired or for another video.
   */
  private async takeEstimation(tx: Queryable, userId: string, estimationId: string, videoId: string): Promise<UsableEstimation> {
    const missing = () =>
      notFound('campaign.error.estimation_not_found', 'No such estimation', { field: 'estimation_id', constraint: 'an existing estimation' });
    if (!isUuid(estimationId)) throw missing();
    const row = await this.estimations.in(tx).findByIdForUpdate(estimationId);
    if (!row) throw missing();
    if (row.user_id !== userId) throw forbidden('campaign.error.estimation_forbidden', 'This estimation belongs to another user');
    if (row.used_at)
      throw conflict('campaign.error.estimation_used', 'This estimation was already used for a campaign', { field: 'estimation_id', constraint: 'unused' });
    if (row.expires_at.getTime() <= new Date().getTime()) {
      throw unprocessable('campaign.error.estimation_expired', 'This estimation has expired: request a new one', {
        field: 'estimation_id',
        constraint: 'not expired',
      });
    }
    if (row.video_id !== videoId) {
      throw unprocessable('campaign.error.estimation_mismatch', 'The estimation was made for another video', {
        field: 'video_id',
        constraint: "the estimation's video",
      });
    }
    return {
      id: row.id,
      budget: row.budget_amount,
      durationDays: row.duration_days,
      targeting: row.targeting,
      result: row.result,
    };
  }

  /** The campaign as the API shows it. */
  private view(row: CampaignRow, delivery?: DeliveryView): CampaignView {
    return {
      campaign_id: row.id,
      name: row.name,
      video_id: row.video_id,
      status: row.status,
      source: row.source,
      boost_type: row.boost_type,
      budget: { amount: row.budget_amount, currency: row.currency },
      platform_fee: row.platform_fee,
      total_amount: row.budget_amount + row.platform_fee,
      duration_days: row.duration_days,
      targeting: row.targeting,
      estimate: row.estimate,
      launch_time: row.launch_time.toISOString(),
      end_time: row.ends_at.toISOString(),
      paused_at: row.paused_at?.toISOString() ?? null,
      completed_at: row.completed_at?.toISOString() ?? null,
      completion_reason: row.completion_reason,
      delivery: delivery ?? deliveryView(row.budget_amount, undefined, undefined),
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
      tracking_url: `${this.config.publicBaseUrl}/api/v1/campaigns/${row.id}`,
    };
  }
}
