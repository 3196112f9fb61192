// The delivery tables (0048_campaign_delivery.sql): the counters of each campaign, the leases of
// impressions nodes hold, reach and impressions per day. Every write here is per batch or per
// block of impressions, never per impression (docs/campaigns.md, "Spending").
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import type { StoredEstimate } from './campaign-repository.js';
import type { StoredTargeting } from './targeting.js';

/** A campaign that may be shown now, with its counters (zero before its first impression). */
export interface DeliverableRow {
  id: string;
  user_id: string;
  video_id: string;
  budget_amount: number;
  duration_days: number;
  launch_time: Date;
  ends_at: Date;
  targeting: StoredTargeting;
  estimate: StoredEstimate | null;
  impressions: number;
  day_index: number;
  day_granted: number;
}

export interface DeliveryCounters {
  campaign_id: string;
  cpm: number;
  impressions: number;
  held: number;
  reach: number;
  engagement: number;
  refunded: number;
}

export interface ReachEntry {
  campaignId: string;
  viewer: string;
  userId: string | null;
  at: Date;
}

export interface DailyEntry {
  campaignId: string;
  contentId: string;
  day: string;
  impressions: number;
}

export class DeliveryRepository extends Repository {
  /** Active campaigns not past their end whose item exists (listed or not: the caller checks). */
  deliverable(at: Date): Promise<DeliverableRow[]> {
    return this.db.rows<DeliverableRow>(sql`
      select c.id, c.user_id, c.video_id, c.budget_amount, c.duration_days, c.launch_time, c.ends_at, c.targeting, c.estimate,
             coalesce(d.impressions, 0)::bigint as impressions, coalesce(d.day_index, 0) as day_index,
             coalesce(d.day_granted, 0)::bigint as day_granted
      from campaigns c left join campaign_delivery d on d.campaign_id = c.id
      where c.status = 'active' and c.ends_at > ${at}`);
  }

  /** The campaign's counters row, made on its first block with the CPM it was sold at. */
  async ensure(campaignId: string, cpm: number): Promise<void> {
    await this.db.rows(sql`insert into campaign_delivery (campaign_id, cpm) values (${campaignId}, ${cpm}) on conflict do nothing`);
  }

  /**
   * Grants up to `want` impressions to a new lease, in one statement: no more than the budget
   * still buys (recorded and held counted) and than the day's pace leaves; none unless the
   * campaign is active and before its end. Answers how many were granted (0: none).
   */
  async grant(l: { campaignId: string; leaseId: string; nodeId: string; want: number; day: number; at: Date; expiresAt: Date }): Promise<number> {
    const [row] = await this.db.rows<{ granted: number }>(sql`
      with cap as (
        select d.campaign_id,
               least(${l.want}::bigint,
                     (c.budget_amount * 1000) / d.cpm - d.impressions - d.held,
                     (c.budget_amount * 1000) / (d.cpm * c.duration_days) - (case when d.day_index = ${l.day} then d.day_granted else 0 end)) as g
        from campaign_delivery d join campaigns c on c.id = d.campaign_id
        where d.campaign_id = ${l.campaignId} and c.status = 'active' and c.ends_at > ${l.at}
        for update of d
      ), upd as (
        update campaign_delivery d
        set held = d.held + cap.g,
            day_granted = (case when d.day_index = ${l.day} then d.day_granted else 0 end) + cap.g,
            day_index = ${l.day}, updated_at = ${l.at}
        from cap where d.campaign_id = cap.campaign_id and cap.g > 0
        returning d.campaign_id, cap.g
      )
      insert into campaign_leases (id, campaign_id, node_id, granted, expires_at)
      select ${l.leaseId}, campaign_id, ${l.nodeId}, g, ${l.expiresAt} from upd
      returning granted`);
    return row ? Number(row.granted) : 0;
  }

  /**
   * Records `served` impressions of a lease, and with `close` gives the unserved rest back. A
   * lease already closed (completed campaign, or reclaimed after its expiry) records nothing:
   * answers null. Else the campaign's recorded impressions and whether the budget is used up.
   */
  async record(leaseId: string, served: number, close: boolean, at: Date): Promise<{ campaignId: string; spentOut: boolean } | null> {
    const [row] = await this.db.rows<{ campaign_id: string; spent_out: boolean }>(sql`
      with l as (
        update campaign_leases set served = served + ${served}, closed_at = case when ${close} then ${at}::timestamptz else null end
        where id = ${leaseId} and closed_at is null
        returning campaign_id, case when ${close} then granted - served else 0 end as unused
      )
      update campaign_delivery d
      set impressions = d.impressions + ${served}, held = d.held - ${served} - l.unused,
          day_granted = greatest(0, d.day_granted - l.unused), updated_at = ${at}
      from l, campaigns c
      where d.campaign_id = l.campaign_id and c.id = d.campaign_id
      returning d.campaign_id, (d.impressions + 1) * d.cpm / 1000 > c.budget_amount and d.held = 0 as spent_out`);
    return row ? { campaignId: row.campaign_id, spentOut: row.spent_out } : null;
  }

  /** Closes the leases whose node never came back (expired before `before`), giving their rest back. */
  async reclaimExpired(before: Date, at: Date): Promise<number> {
    const rows = await this.db.rows<{ campaign_id: string }>(sql`
      with l as (
        update campaign_leases set closed_at = ${at} where closed_at is null and expires_at < ${before}
        returning campaign_id, granted - served as unused
      ), s as (select campaign_id, sum(unused)::bigint as unused from l group by campaign_id)
      update campaign_delivery d set held = d.held - s.unused from s where d.campaign_id = s.campaign_id
      returning d.campaign_id`);
    return rows.length;
  }

  async addDaily(entries: DailyEntry[]): Promise<void> {
    if (!entries.length) return;
    const values = sql.join(
      entries.map((e) => sql`(${e.campaignId}::uuid, ${e.contentId}::uuid, ${e.day}::date, ${e.impressions}::bigint)`),
      sql`, `,
    );
    await this.db.rows(sql`
      insert into campaign_impressions_daily (campaign_id, content_id, day, impressions) values ${values}
      on conflict (campaign_id, day) do update set impressions = campaign_impressions_daily.impressions + excluded.impressions`);
  }

  /** Adds first showings; each campaign's reach grows by the viewers new to it. */
  async addReach(entries: ReachEntry[]): Promise<void> {
    if (!entries.length) return;
    const values = sql.join(
      entries.map((e) => sql`(${e.campaignId}::uuid, ${e.viewer}, ${e.userId}::uuid, ${e.at}::timestamptz)`),
      sql`, `,
    );
    await this.db.rows(sql`
      with added as (
        insert into campaign_reach (campaign_id, viewer, user_id, first_seen_at) values ${values}
        on conflict do nothing returning campaign_id
      ), n as (select campaign_id, count(*)::bigint as n from added group by campaign_id)
      update campaign_delivery d set reach = d.reach + n.n from n where d.campaign_id = n.campaign_id`);
  }

  /**
   * Recounts engagement of the campaigns delivering or recently completed: reactions to and
   * comments on the campaign's item, and follows of its owner, made by a reached user after
   * their first showing. Bounded by the reach of those campaigns; run every few seconds by a
   * node, never per request.
   */
  async rollUpEngagement(since: Date): Promise<void> {
    await this.db.rows(sql`
      with live as (
        select c.id, c.video_id, c.user_id from campaigns c join campaign_delivery d on d.campaign_id = c.id
        where c.status <> 'completed' or c.completed_at > ${since}
      ), counts as (
        select l.id,
          (select count(*) from campaign_reach r join content_reactions x on x.user_id = r.user_id and x.content_id = l.video_id and x.created_at >= r.first_seen_at where r.campaign_id = l.id)
        + (select count(*) from campaign_reach r join comments x on x.author_id = r.user_id and x.content_id = l.video_id and x.created_at >= r.first_seen_at where r.campaign_id = l.id)
        + (select count(*) from campaign_reach r join follows x on x.follower_id = r.user_id and x.following_id = l.user_id and x.created_at >= r.first_seen_at where r.campaign_id = l.id)
          as engagement
        from live l
      )
      update campaign_delivery d set engagement = counts.engagement from counts
      where d.campaign_id = counts.id and d.engagement <> counts.engagement`);
  }

  /** Claims the right to send progress for these campaigns: those not sent within `minGapMs`, once across nodes. */
  claimProgress(campaignIds: string[], at: Date, minGapMs: number): Promise<{ campaign_id: string; user_id: string }[]> {
    if (!campaignIds.length) return Promise.resolve([]);
    const ids = sql.join(
      campaignIds.map((id) => sql`${id}::uuid`),
      sql`, `,
    );
    return this.db.rows(sql`
      update campaign_delivery d set progress_at = ${at}
      from campaigns c
      where d.campaign_id in (${ids}) and c.id = d.campaign_id and c.status = 'active'
        and (d.progress_at is null or d.progress_at <= ${at}::timestamptz - make_interval(secs => ${minGapMs / 1000}))
      returning d.campaign_id, c.user_id`);
  }

  /** `lock`: held until the transaction ends (a completion). */
  async counters(campaignIds: string[], lock = false): Promise<Map<string, DeliveryCounters>> {
    if (!campaignIds.length) return new Map();
    const ids = sql.join(
      campaignIds.map((id) => sql`${id}::uuid`),
      sql`, `,
    );
    const rows = await this.db.rows<DeliveryCounters>(
      sql`select campaign_id, cpm, impressions, held, reach, engagement, refunded from campaign_delivery where campaign_id in (${ids}) ${lock ? sql`for update` : sql``}`,
    );
    return new Map(rows.map((r) => [r.campaign_id, r]));
  }

  /**
   * Freezes a completing campaign's spending: closes its open leases (what they served and did
   * not record yet is never charged) and records the refund. Run in the completion's transaction.
   */
  async settle(campaignId: string, refunded: number, at: Date): Promise<void> {
    await this.db.rows(sql`update campaign_leases set closed_at = ${at} where campaign_id = ${campaignId} and closed_at is null`);
    await this.db.rows(sql`update campaign_delivery set held = 0, refunded = ${refunded}, updated_at = ${at} where campaign_id = ${campaignId}`);
  }

  /** A leaving user's first showings (CONTRACT §22): the rows go, the campaigns' reach stays. */
  async forgetViewer(userId: string): Promise<void> {
    await this.db.rows(sql`delete from campaign_reach where user_id = ${userId}`);
  }
}
