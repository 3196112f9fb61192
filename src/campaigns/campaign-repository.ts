// The campaigns table.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { jsonb } from '../db/sql-fragments.js';
import { newId } from '../shared/ids.js';
import type { Estimate } from './estimate-model.js';
import type { CampaignStatus } from './schemas.js';
import type { StoredTargeting } from './targeting.js';

/** The part of the estimate a campaign keeps. */
export type StoredEstimate = Pick<Estimate, 'performance' | 'metrics'>;

export interface CampaignRow {
  id: string;
  user_id: string;
  video_id: string;
  estimation_id: string | null;
  name: string;
  source: 'create' | 'boost';
  boost_type: string | null;
  status: CampaignStatus;
  budget_amount: number;
  platform_fee: number;
  currency: string;
  duration_days: number;
  targeting: StoredTargeting;
  estimate: StoredEstimate | null;
  launch_time: Date;
  ends_at: Date;
  paused_at: Date | null;
  completed_at: Date | null;
  completion_reason: 'ended' | 'budget_spent' | null;
  created_at: Date;
  updated_at: Date;
}

interface NewCampaign {
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
  targeting: StoredTargeting;
  estimate: StoredEstimate;
  launchTime: Date;
  endsAt: Date;
}

export class CampaignRepository extends Repository {
  async insert(campaign: NewCampaign): Promise<CampaignRow> {
    const [row] = await this.db.rows<CampaignRow>(
      sql`insert into campaigns (id, user_id, video_id, estimation_id, name, source, boost_type, status, budget_amount,
                                 platform_fee, currency, duration_days, targeting, estimate, launch_time, ends_at)
          values (${newId()}, ${campaign.userId}, ${campaign.videoId}, ${campaign.estimationId}, ${campaign.name},
                  ${campaign.source}, ${campaign.boostType}, 'active', ${campaign.budget}, ${campaign.platformFee},
                  ${campaign.currency}, ${campaign.durationDays}, ${jsonb(campaign.targeting)},
                  ${jsonb(campaign.estimate)}, ${campaign.launchTime}, ${campaign.endsAt})
          returning *`,
    );
    return row;
  }

  async findById(id: string): Promise<CampaignRow | undefined> {
    const [row] = await this.db.rows<CampaignRow>(sql`select * from campaigns where id = ${id}`);
    return row;
  }

  /** As findById, holding the row lock until the transaction ends. */
  async findByIdForUpdate(id: string): Promise<CampaignRow | undefined> {
    const [row] = await this.db.rows<CampaignRow>(sql`select * from campaigns where id = ${id} for update`);
    return row;
  }

  /** Sets the status; pausing stamps paused_at, resuming clears it, completing stamps completed_at (never after the end). */
  async setStatus(id: string, status: CampaignStatus, at: Date): Promise<CampaignRow> {
    const [row] = await this.db.rows<CampaignRow>(
      sql`update campaigns set status = ${status},
            paused_at = case ${status}::text when 'paused' then ${at}::timestamptz when 'active' then null else paused_at end,
            completed_at = case when ${status}::text = 'completed' then least(ends_at, ${at}::timestamptz) else completed_at end,
            updated_at = ${at}::timestamptz
          where id = ${id}
          returning *`,
    );
    return row;
  }

  async addBudget(id: string, budget: number, fee: number): Promise<CampaignRow> {
    const [row] = await this.db.rows<CampaignRow>(
      sql`update campaigns set budget_amount = budget_amount + ${budget}, platform_fee = platform_fee + ${fee}, updated_at = now()
          where id = ${id} returning *`,
    );
    return row;
  }

  /** A page of the user's campaigns, newest first, and how many there are in all. */
  async listByUser(userId: string, filter: { status?: CampaignStatus; limit: number; offset: number }): Promise<{ rows: CampaignRow[]; total: number }> {
    const statusClause = filter.status ? sql`and status = ${filter.status}` : sql``;
    const rows = await this.db.rows<CampaignRow>(
      sql`select * from campaigns where user_id = ${userId} ${statusClause}
          order by created_at desc, id desc limit ${filter.limit} offset ${filter.offset}`,
    );
    const [count] = await this.db.rows<{ total: number }>(sql`select count(*)::int as total from campaigns where user_id = ${userId} ${statusClause}`);
    return { rows, total: count.total };
  }

  /** The active or paused campaigns whose end is at or before `at`, locked for their completion. */
  lockDue(at: Date): Promise<CampaignRow[]> {
    return this.db.rows<CampaignRow>(sql`select * from campaigns where status in ('active', 'paused') and ends_at <= ${at} order by ends_at for update`);
  }

  /**
   * Completes a campaign still running; null when it was completed already. `completed_at` is
   * its end when it ran its course, the moment it ran out of budget otherwise.
   */
  async complete(id: string, reason: 'ended' | 'budget_spent', at: Date): Promise<CampaignRow | null> {
    const [row] = await this.db.rows<CampaignRow>(
      sql`update campaigns set status = 'completed', completion_reason = ${reason},
            completed_at = least(ends_at, ${at}::timestamptz), paused_at = null, updated_at = ${at}::timestamptz
          where id = ${id} and status <> 'completed'
          returning *`,
    );
    return row ?? null;
  }
}
