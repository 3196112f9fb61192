// Queries on the campaigns table, and the campaign as the API shows it.
import { sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import { forbidden, notFound } from '../shared/errors.js';
import { isUuid, newId } from '../shared/ids.js';
import { rowsOf, toAmount, toIso, type SqlExecutor } from '../payments/sql-rows.js';
import type { CampaignStatus } from './schemas.js';

export interface CampaignRow {
  id: string;
  user_id: string;
  video_id: string;
  estimation_id: string | null;
  name: string;
  source: 'create' | 'boost';
  boost_type: string | null;
  status: CampaignStatus;
  budget_amount: unknown;
  platform_fee: unknown;
  currency: string;
  duration_days: number;
  targeting: unknown;
  estimate: unknown;
  launch_time: unknown;
  ends_at: unknown;
  paused_at: unknown;
  completed_at: unknown;
  created_at: unknown;
  updated_at: unknown;
}

export interface NewCampaign {
  userId: string;
  videoId: string;
  estimationId: string | null;
  name: string;
  source: 'create' | 'boost';
  boostType: string | null;
  budget: number;
  platformFee: number;
  currency: string;
  durationDays: number;
  targeting: unknown;
  estimate: unknown;
  launchTime: Date;
}

export async function insertCampaign(tx: SqlExecutor, campaign: NewCampaign): Promise<CampaignRow> {
  const endsAt = new Date(campaign.launchTime.getTime() + campaign.durationDays * 86_400_000);
  const [row] = await rowsOf<CampaignRow>(
    tx,
    sql`insert into campaigns (id, user_id, video_id, estimation_id, name, source, boost_type, status, budget_amount,
                               platform_fee, currency, duration_days, targeting, estimate, launch_time, ends_at)
        values (${newId()}, ${campaign.userId}, ${campaign.videoId}, ${campaign.estimationId}, ${campaign.name},
                ${campaign.source}, ${campaign.boostType}, 'active', ${campaign.budget}, ${campaign.platformFee},
                ${campaign.currency}, ${campaign.durationDays}, ${JSON.stringify(campaign.targeting)}::jsonb,
                ${JSON.stringify(campaign.estimate ?? null)}::jsonb, ${campaign.launchTime}, ${endsAt})
        returning *`,
  );
  return row;
}

/** The caller's campaign, locked for a state change: 404 unknown, 403 another user's. */
export async function lockOwnCampaign(tx: SqlExecutor, userId: string, campaignId: string, field = 'campaign_id'): Promise<CampaignRow> {
  const missing = () => notFound('campaign.error.not_found', 'No such campaign', { field, constraint: 'an existing campaign' });
  if (!isUuid(campaignId)) throw missing();
  const [row] = await rowsOf<CampaignRow>(tx, sql`select * from campaigns where id = ${campaignId} for update`);
  if (!row) throw missing();
  if (row.user_id !== userId) throw forbidden('campaign.error.forbidden', 'This campaign belongs to another user');
  return row;
}

export async function readOwnCampaign(executor: SqlExecutor, userId: string, campaignId: string): Promise<CampaignRow> {
  const missing = () => notFound('campaign.error.not_found', 'No such campaign', { field: 'id', constraint: 'an existing campaign' });
  if (!isUuid(campaignId)) throw missing();
  const [row] = await rowsOf<CampaignRow>(executor, sql`select * from campaigns where id = ${campaignId}`);
  if (!row) throw missing();
  if (row.user_id !== userId) throw forbidden('campaign.error.forbidden', 'This campaign belongs to another user');
  return row;
}

export async function setCampaignStatus(tx: SqlExecutor, campaignId: string, status: CampaignStatus, at: Date): Promise<CampaignRow> {
  const [row] = await rowsOf<CampaignRow>(
    tx,
    sql`update campaigns set status = ${status},
          paused_at = case ${status}::text when 'paused' then ${at}::timestamptz when 'active' then null else paused_at end,
          completed_at = case when ${status}::text = 'completed' then least(ends_at, ${at}::timestamptz) else completed_at end,
          updated_at = ${at}::timestamptz
        where id = ${campaignId}
        returning *`,
  );
  return row;
}

export async function addCampaignBudget(tx: SqlExecutor, campaignId: string, budget: number, fee: number): Promise<CampaignRow> {
  const [row] = await rowsOf<CampaignRow>(
    tx,
    sql`update campaigns set budget_amount = budget_amount + ${budget}, platform_fee = platform_fee + ${fee}, updated_at = now()
        where id = ${campaignId} returning *`,
  );
  return row;
}

export function trackingUrl(config: Config, campaignId: string): string {
  return `${config.publicBaseUrl}/api/v1/campaigns/${campaignId}`;
}

export interface CampaignView {
  campaign_id: string;
  name: string;
  video_id: string;
  status: CampaignStatus;
  source: 'create' | 'boost';
  boost_type: string | null;
  budget: { amount: number; currency: string };
  platform_fee: number;
  total_amount: number;
  duration_days: number;
  targeting: unknown;
  estimate: unknown;
  launch_time: string;
  end_time: string;
  paused_at: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
  tracking_url: string;
}

export function campaignView(config: Config, row: CampaignRow): CampaignView {
  const budget = toAmount(row.budget_amount);
  const fee = toAmount(row.platform_fee);
  return {
    campaign_id: row.id,
    name: row.name,
    video_id: row.video_id,
    status: row.status,
    source: row.source,
    boost_type: row.boost_type,
    budget: { amount: budget, currency: row.currency },
    platform_fee: fee,
    total_amount: budget + fee,
    duration_days: Number(row.duration_days),
    targeting: row.targeting,
    estimate: row.estimate,
    launch_time: toIso(row.launch_time)!,
    end_time: toIso(row.ends_at)!,
    paused_at: toIso(row.paused_at),
    completed_at: toIso(row.completed_at),
    created_at: toIso(row.created_at)!,
    updated_at: toIso(row.updated_at)!,
    tracking_url: trackingUrl(config, row.id),
  };
}

export async function listOwnCampaigns(
  executor: SqlExecutor,
  userId: string,
  filter: { status?: CampaignStatus; page: number; perPage: number },
): Promise<{ rows: CampaignRow[]; total: number }> {
  const statusClause = filter.status ? sql`and status = ${filter.status}` : sql``;
  const rows = await rowsOf<CampaignRow>(
    executor,
    sql`select * from campaigns where user_id = ${userId} ${statusClause}
        order by created_at desc, id desc limit ${filter.perPage} offset ${(filter.page - 1) * filter.perPage}`,
  );
  const [count] = await rowsOf<{ total: unknown }>(
    executor,
    sql`select count(*)::int as total from campaigns where user_id = ${userId} ${statusClause}`,
  );
  return { rows, total: Number(count?.total ?? 0) };
}
