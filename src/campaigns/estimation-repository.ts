// The campaign_estimations table: the priced forecasts campaigns are bought from.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { jsonb } from '../db/sql-fragments.js';
import type { EstimationView } from './response-schemas.js';
import type { StoredTargeting } from './targeting.js';

interface EstimationRow {
  id: string;
  user_id: string;
  video_id: string;
  budget_amount: number;
  duration_days: number;
  targeting: StoredTargeting;
  result: EstimationView;
  expires_at: Date;
  used_at: Date | null;
}

interface NewEstimation {
  id: string;
  userId: string;
  videoId: string;
  budget: number;
  currency: string;
  durationDays: number;
  targeting: StoredTargeting;
  result: EstimationView;
  expiresAt: Date;
}

export class EstimationRepository extends Repository {
  async insert(e: NewEstimation): Promise<void> {
    await this.db.rows(
      sql`insert into campaign_estimations (id, user_id, video_id, budget_amount, currency, duration_days, targeting, result, expires_at)
          values (${e.id}, ${e.userId}, ${e.videoId}, ${e.budget}, ${e.currency}, ${e.durationDays},
                  ${jsonb(e.targeting)}, ${jsonb(e.result)}, ${e.expiresAt})`,
    );
  }

  /** The estimation, holding its row lock until the transaction ends. */
  async findByIdForUpdate(id: string): Promise<EstimationRow | undefined> {
    const [row] = await this.db.rows<EstimationRow>(
      sql`select id, user_id, video_id, budget_amount, duration_days, targeting, result, expires_at, used_at
          from campaign_estimations where id = ${id} for update`,
    );
    return row;
  }

  async markUsed(id: string): Promise<void> {
    await this.db.rows(sql`update campaign_estimations set used_at = now() where id = ${id}`);
  }
}
