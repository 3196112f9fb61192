// Serving and charging impressions (CONTRACT §26), on each node:
// - the roster: the campaigns that may be shown now (active, before their end, their item listed),
//   read once a ROSTER_MS from the database and kept in memory; a pause or completion on this node
//   drops it at once, other nodes follow within ROSTER_MS;
// - blocks: a node serves impressions from a lease it took from the database in one statement
//   (DeliveryRepository.grant: never more than the budget buys and the day's pace allows), and
//   records what it served every FLUSH_MS in one batch. A lease is served for at most LEASE_SERVE_MS
//   and recorded and closed before LEASE_TTL_MS; a lease left open past its expiry (its node died)
//   is closed by any node RECLAIM_GRACE_MS later, its unserved rest given back. A closed lease
//   records nothing more, so an impression is never charged twice: a dead node's unrecorded
//   impressions (at most FLUSH_MS of them) are not charged at all.
// docs/campaigns.md, "Spending", has the whole model.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../shared/logger.js';
import type { DomainEventBus } from '../event-bus.js';
import type { ContentRepository, ContentRow } from '../content/index.js';
import { newId } from '../shared/ids.js';
import type { DeliverableRow, DeliveryRepository, ReachEntry } from './delivery-repository.js';
import type { DeliveryView } from './delivery-view.js';
import type { StoredTargeting } from './targeting.js';

const ROSTER_MS = 1_000;
const FLUSH_MS = 1_000;
const LEASE_SERVE_MS = 20_000;
const LEASE_TTL_MS = 30_000;
const RECLAIM_GRACE_MS = 10_000;
const ENGAGEMENT_MS = 5_000;
/** `campaign:progress` at most this often per campaign. */
export const PROGRESS_GAP_MS = 10_000;
/**
 * Impressions asked for at once at first; fewer when the budget or the day's pace leaves fewer. A
 * block used up within FAST_USE_MS doubles the next ask, up to MAX_BLOCK_SIZE, and one served
 * out by time with most of it left halves it: a busy node takes a lease every second or two, not
 * dozens a second with every request of the campaign waiting for each.
 */
const BLOCK_SIZE = 50;
const MAX_BLOCK_SIZE = 5_000;
const FAST_USE_MS = 2_000;
/** Four parameters a row: far below PostgreSQL's 65,535 parameters a statement. */
const REACH_ROWS_PER_STATEMENT = 2_000;
const DAY_MS = 86_400_000;
/** The CPM of a campaign sold without an estimate (the model's base). */
const DEFAULT_CPM = 40_000;

/** A campaign the sponsored slot may pick. */
export interface Deliverable {
  id: string;
  ownerId: string;
  content: ContentRow;
  targeting: StoredTargeting;
  cpm: number;
  launch: Date;
  /** Share of today's paced allowance already granted (0 … 1): the fairness order. */
  paceUsed: number;
}

interface Block {
  leaseId: string;
  campaignId: string;
  contentId: string;
  /** Impressions granted. */
  size: number;
  left: number;
  openedAt: number;
}

interface Pending {
  served: number;
  close: boolean;
}

/** What completion and the progress pushes need from the campaign service. */
export interface DeliveryHooks {
  completeIfSpent(campaignId: string): Promise<void>;
  deliveryOf(campaignIds: string[]): Promise<Map<string, DeliveryView>>;
}

export type Clock = () => Date;

export class CampaignDelivery {
  private roster: Deliverable[] = [];
  private rosterAt = -Infinity;
  private rosterLoad: Promise<void> | null = null;
  private readonly blocks = new Map<string, Block>();
  private readonly refills = new Map<string, Promise<Block | null>>();
  /** The next ask per campaign (BLOCK_SIZE when none is kept). */
  private readonly asks = new Map<string, number>();
  /** Campaigns that got nothing on their last grant: not asked again before the next roster. */
  private readonly dry = new Set<string>();
  private readonly pending = new Map<string, Pending>();
  private reach: ReachEntry[] = [];
  private readonly daily = new Map<string, { campaignId: string; contentId: string; day: string; impressions: number }>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private lastEngagement = 0;
  private hooks: DeliveryHooks | null = null;
  private readonly nodeId = randomUUID();

  constructor(
    private readonly repository: DeliveryRepository,
    private readonly contents: ContentRepository,
    private readonly events: DomainEventBus,
    private readonly log: Logger,
    readonly now: Clock,
    /** The item's impressions per day for its analytics (src/views, wired by the composition root). */
    private readonly impressionsRecorded: (rows: { contentId: string; day: string; count: number }[]) => Promise<void> = async () => {},
  ) {}

  attach(hooks: DeliveryHooks): void {
    this.hooks = hooks;
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** Records everything served and gives every lease's rest back (a graceful stop). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const block of this.blocks.values()) this.retire(block);
    this.blocks.clear();
    await this.flush();
  }

  /** Forget the roster: a campaign changed state on this node. */
  invalidate(): void {
    this.rosterAt = -Infinity;
  }

  async deliverable(): Promise<Deliverable[]> {
    if (Date.now() - this.rosterAt >= ROSTER_MS) {
      this.rosterLoad ??= this.loadRoster().finally(() => (this.rosterLoad = null));
      // The first read waits; later ones serve the roster they have while it reloads.
      if (this.rosterAt === -Infinity) await this.rosterLoad;
    }
    return this.roster;
  }

  /** The campaign day (whole days since launch) of `at`: pacing counts per campaign day. */
  static campaignDay(launch: Date, at: Date): number {
    return Math.max(0, Math.floor((at.getTime() - launch.getTime()) / DAY_MS));
  }

  /** Reads the roster; a failed read keeps the one it has (none at first) until the next try, ROSTER_MS on. */
  private async loadRoster(): Promise<void> {
    try {
      await this.readRoster();
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'campaign roster not read; the slot serves the one it has');
      this.rosterAt = Date.now();
    }
  }

  private async readRoster(): Promise<void> {
    const at = this.now();
    const rows = await this.repository.deliverable(at);
    const roster: Deliverable[] = [];
    for (const row of rows) {
      const content = await this.contents.findLive(row.video_id);
      // Only listed items are promoted: not held, removed, still processing or deleted.
      if (!content || content.status !== 'completed') continue;
      roster.push({
        id: row.id,
        ownerId: row.user_id,
        content,
        targeting: row.targeting,
        cpm: cpmOf(row),
        launch: row.launch_time,
        paceUsed: paceUsed(row, at),
      });
    }
    roster.sort((a, b) => a.paceUsed - b.paceUsed || a.id.localeCompare(b.id));
    this.roster = roster;
    this.rosterAt = Date.now();
    this.dry.clear();
    const live = new Set(roster.map((r) => r.id));
    for (const [id, block] of this.blocks) {
      if (!live.has(id)) {
        this.retire(block);
        this.blocks.delete(id);
      }
    }
    for (const id of this.asks.keys()) if (!live.has(id)) this.asks.delete(id);
  }

  /**
   * One impression of the campaign, taken from this node's block (a new lease when it is used
   * up or old). Null when the budget or today's pace leaves none.
   */
  async take(campaign: Deliverable): Promise<Block | null> {
    let block = this.blocks.get(campaign.id);
    if (block && (block.left <= 0 || Date.now() - block.openedAt > LEASE_SERVE_MS)) {
      // Served out by time with more than half of it left: this node needs smaller blocks.
      if (block.left * 2 > block.size) this.asks.set(campaign.id, Math.max(BLOCK_SIZE, Math.floor(block.size / 2)));
      this.retire(block);
      this.blocks.delete(campaign.id);
      block = undefined;
    }
    if (!block) {
      if (this.dry.has(campaign.id)) return null;
      let refill = this.refills.get(campaign.id);
      if (!refill) {
        refill = this.lease(campaign).finally(() => this.refills.delete(campaign.id));
        this.refills.set(campaign.id, refill);
      }
      block = (await refill) ?? undefined;
      if (!block) return null;
    }
    if (block.left <= 0) return null;
    block.left -= 1;
    // Used up: recorded and closed with the next batch (a campaign whose budget this spends completes then).
    if (block.left === 0) {
      if (Date.now() - block.openedAt < FAST_USE_MS) this.asks.set(campaign.id, Math.min(MAX_BLOCK_SIZE, block.size * 2));
      this.retire(block);
      this.blocks.delete(campaign.id);
    }
    return block;
  }

  /** An impression taken and not served after all. */
  giveBack(block: Block): void {
    const pending = this.pending.get(block.leaseId);
    // A block retired meanwhile gives it back with its lease (its unserved rest).
    if (pending?.close) return;
    block.left += 1;
  }

  /** The impression was served to `viewer`: counted for the next batch. */
  served(block: Block, viewer: string, userId: string | null): void {
    const pending = this.pending.get(block.leaseId) ?? { served: 0, close: false };
    pending.served += 1;
    this.pending.set(block.leaseId, pending);
    const at = this.now();
    this.reach.push({ campaignId: block.campaignId, viewer, userId, at });
    const day = at.toISOString().slice(0, 10);
    const key = `${block.campaignId}|${day}`;
    const entry = this.daily.get(key) ?? { campaignId: block.campaignId, contentId: block.contentId, day, impressions: 0 };
    entry.impressions += 1;
    this.daily.set(key, entry);
  }

  private async lease(campaign: Deliverable): Promise<Block | null> {
    const at = this.now();
    await this.repository.ensure(campaign.id, campaign.cpm);
    const leaseId = newId();
    const granted = await this.repository.grant({
      campaignId: campaign.id,
      leaseId,
      nodeId: this.nodeId,
      want: this.asks.get(campaign.id) ?? BLOCK_SIZE,
      day: CampaignDelivery.campaignDay(campaign.launch, at),
      at,
      expiresAt: new Date(at.getTime() + LEASE_TTL_MS),
    });
    if (granted <= 0) {
      this.dry.add(campaign.id);
      // Nothing left to buy may mean the budget is spent: the service completes it if so.
      void this.hooks?.completeIfSpent(campaign.id).catch((err: Error) => this.log.warn({ err: err.message }, 'campaign completion failed'));
      return null;
    }
    const block: Block = { leaseId, campaignId: campaign.id, contentId: campaign.content.id, size: granted, left: granted, openedAt: Date.now() };
    this.blocks.set(campaign.id, block);
    return block;
  }

  /** The block is served no more: its lease is recorded and closed with the next batch. */
  private retire(block: Block): void {
    const pending = this.pending.get(block.leaseId) ?? { served: 0, close: false };
    pending.close = true;
    this.pending.set(block.leaseId, pending);
    block.left = 0;
  }

  /** Writes the batch: served impressions per lease, reach and daily counts; then completions and progress. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write()).catch((err: Error) => this.log.warn({ err: err.message }, 'campaign delivery flush failed'));
    return this.flushing;
  }

  private async write(): Promise<void> {
    const at = this.now();
    const batch = [...this.pending];
    this.pending.clear();
    const reach = this.reach;
    this.reach = [];
    const daily = [...this.daily.values()];
    this.daily.clear();
    const delivered = new Set<string>();
    const spentOut: string[] = [];
    const accepted = new Set<string>();
    for (const [leaseId, { served, close }] of batch) {
      if (served === 0 && !close) continue;
      const recorded = await this.repository.record(leaseId, served, close, at);
      if (!recorded) continue;
      accepted.add(recorded.campaignId);
      if (served > 0) delivered.add(recorded.campaignId);
      if (recorded.spentOut) spentOut.push(recorded.campaignId);
    }
    // Reach and days follow only what was charged (a closed lease's impressions count nowhere).
    // One row per campaign and viewer (the first showing of the batch), in statements of bounded size.
    const firsts = new Map<string, ReachEntry>();
    for (const r of reach) if (accepted.has(r.campaignId) && !firsts.has(`${r.campaignId}|${r.viewer}`)) firsts.set(`${r.campaignId}|${r.viewer}`, r);
    const rows = [...firsts.values()];
    for (let i = 0; i < rows.length; i += REACH_ROWS_PER_STATEMENT) await this.repository.addReach(rows.slice(i, i + REACH_ROWS_PER_STATEMENT));
    const charged = daily.filter((d) => accepted.has(d.campaignId));
    await this.repository.addDaily(charged);
    // The item's analytics count the same impressions (a failure here leaves them short, never the charge).
    if (charged.length) {
      await this.impressionsRecorded(charged.map((d) => ({ contentId: d.contentId, day: d.day, count: d.impressions }))).catch((err: Error) =>
        this.log.warn({ err: err.message }, 'impressions not added to analytics'),
      );
    }
    for (const id of spentOut) await this.hooks?.completeIfSpent(id);
    if (Date.now() - this.lastEngagement >= ENGAGEMENT_MS) {
      this.lastEngagement = Date.now();
      await this.repository.reclaimExpired(new Date(at.getTime() - RECLAIM_GRACE_MS), at);
      await this.repository.rollUpEngagement(new Date(at.getTime() - DAY_MS));
    }
    if (delivered.size && this.hooks) {
      const claimed = await this.repository.claimProgress([...delivered], at, PROGRESS_GAP_MS);
      if (claimed.length) {
        const views = await this.hooks.deliveryOf(claimed.map((c) => c.campaign_id));
        for (const c of claimed) {
          const delivery = views.get(c.campaign_id);
          if (delivery) this.events.publish('campaign.progress', { userId: c.user_id, campaign_id: c.campaign_id, delivery });
        }
      }
    }
  }
}

export function cpmOf(row: Pick<DeliverableRow, 'estimate'>): number {
  const cpm = row.estimate?.metrics?.cpm;
  return typeof cpm === 'number' && cpm > 0 ? Math.round(cpm) : DEFAULT_CPM;
}

/** The share of today's allowance (budget / duration, in impressions) granted already. */
function paceUsed(row: DeliverableRow, at: Date): number {
  const dayCap = Math.floor((Number(row.budget_amount) * 1000) / (cpmOf(row) * row.duration_days));
  if (dayCap <= 0) return 1;
  const today = CampaignDelivery.campaignDay(row.launch_time, at);
  const granted = row.day_index === today ? Number(row.day_granted) : 0;
  return Math.min(1, granted / dayCap);
}
