// Estimations: the priced forecast a campaign is bought from. Each is stored with its caller,
// video, inputs and result, lives ESTIMATION_TTL_MS, and is used by at most one campaign.
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import { conflict, forbidden, notFound, unprocessable } from '../shared/errors.js';
import { isUuid, newId } from '../shared/ids.js';
import { now } from '../shared/clock.js';
import { rowsOf, toAmount, type SqlExecutor } from '../payments/sql-rows.js';
import { estimateCampaign, type AudienceInput, type Estimate } from './estimate-model.js';
import { assertCampaignCurrency } from './currency.js';
import { CAMPAIGN_CURRENCY } from './pricing.js';
import type { EstimateBody } from './schemas.js';
import { normaliseAudience, resolveLocationRefs, type ResolvedLocation } from './targeting.js';
import { assertOwnVideo } from './videos.js';

export const ESTIMATION_TTL_MS = 24 * 3600 * 1000;

export interface StoredTargeting {
  locations: ResolvedLocation[];
  audience: AudienceInput;
  population: number;
}

export interface EstimationView extends Omit<Estimate, 'audience'> {
  estimation_id: string;
  video_id: string;
  audience: Estimate['audience'];
  expires_at: string;
}

export async function createEstimation(app: AppContext, userId: string, body: EstimateBody): Promise<EstimationView> {
  assertCampaignCurrency(body.budget.currency, 'budget.currency');
  const targeting = resolveLocationRefs(body.targeting.locations, 'targeting.locations');
  const audience = normaliseAudience(body.targeting.audience);
  await assertOwnVideo(app.db, userId, body.video_id);
  const start = now();
  const estimate = estimateCampaign({ budget: body.budget.amount, durationDays: body.duration_days, population: targeting.population, audience, start });
  const id = newId();
  const expiresAt = new Date(start.getTime() + ESTIMATION_TTL_MS);
  const stored: StoredTargeting = { locations: targeting.locations, audience, population: targeting.population };
  const view: EstimationView = { estimation_id: id, video_id: body.video_id, ...estimate, expires_at: expiresAt.toISOString() };
  await app.database.rows(
    sql`insert into campaign_estimations (id, user_id, video_id, budget_amount, currency, duration_days, targeting, result, expires_at)
        values (${id}, ${userId}, ${body.video_id}, ${body.budget.amount}, ${CAMPAIGN_CURRENCY}, ${body.duration_days},
                ${JSON.stringify(stored)}::jsonb, ${JSON.stringify(view)}::jsonb, ${expiresAt})`,
  );
  return view;
}

export interface UsableEstimation {
  id: string;
  videoId: string;
  budget: number;
  durationDays: number;
  targeting: StoredTargeting;
  result: EstimationView;
}

/**
 * Loads and locks an estimation for a campaign: 404 unknown, 403 another user's, 422 expired or
 * for another video, 409 already used by a campaign.
 */
export async function takeEstimation(tx: SqlExecutor, userId: string, estimationId: string, videoId: string): Promise<UsableEstimation> {
  const missing = () => notFound('campaign.error.estimation_not_found', 'No such estimation', { field: 'estimation_id', constraint: 'an existing estimation' });
  if (!isUuid(estimationId)) throw missing();
  const [row] = await rowsOf<Record<string, unknown>>(
    tx,
    sql`select id, user_id, video_id, budget_amount, duration_days, targeting, result, expires_at, used_at
        from campaign_estimations where id = ${estimationId} for update`,
  );
  if (!row) throw missing();
  if (row.user_id !== userId) throw forbidden('campaign.error.estimation_forbidden', 'This estimation belongs to another user');
  if (row.used_at) throw conflict('campaign.error.estimation_used', 'This estimation was already used for a campaign', { field: 'estimation_id', constraint: 'unused' });
  if (new Date(row.expires_at as string | Date).getTime() <= now().getTime()) {
    throw unprocessable('campaign.error.estimation_expired', 'This estimation has expired: request a new one', { field: 'estimation_id', constraint: 'not expired' });
  }
  if (row.video_id !== videoId) {
    throw unprocessable('campaign.error.estimation_mismatch', 'The estimation was made for another video', { field: 'video_id', constraint: 'the estimation\'s video' });
  }
  return {
    id: String(row.id),
    videoId: String(row.video_id),
    budget: toAmount(row.budget_amount),
    durationDays: Number(row.duration_days),
    targeting: row.targeting as StoredTargeting,
    result: row.result as EstimationView,
  };
}

export async function markEstimationUsed(tx: SqlExecutor, estimationId: string): Promise<void> {
  await tx.execute(sql`update campaign_estimations set used_at = now() where id = ${estimationId}`);
}
