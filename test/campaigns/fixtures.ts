// Shared fixtures of the campaign tests: a video owned by a user, an estimation, and counters of
// what money-related rows a user has (to prove a refused payment left nothing behind).
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { TestServer } from '../helpers/server.js';
import type { TestUser } from '../helpers/api.js';

/** A content item owned by `user`: through the content API, or (if that is not available) a row. */
export async function createVideo(server: TestServer, user: TestUser): Promise<string> {
  const res = await user.api.post('/content/api/v1/content', {
    price: 3_500_000_000,
    unit_price: 'VND',
    area: 75,
    unit_area: 'm2',
    content_info: [{ lang: 'vi', project_name: 'Căn hộ quảng cáo' }],
  });
  if (res.status === 201 && typeof res.body?.data?.id === 'string') return res.body.data.id;
  const id = randomUUID();
  await server.service.app.database.rows(
    sql`insert into contents (id, uploader_id, status, price, unit_price, area, unit_area, video)
        values (${id}, ${user.userId}, 'completed', 3500000000, 'VND', 75, 'm2',
                ${JSON.stringify({ original_name: 'a.mp4', size: 1, resolution: null, duration: null, status: 'completed', original_path: null, playlist_path: null, thumbnail_path: null, error: null })}::jsonb)`,
  );
  return id;
}

export function estimateBody(videoId: string, overrides: Record<string, unknown> = {}) {
  return {
    video_id: videoId,
    budget: { amount: 1_000_000, currency: 'VND' },
    duration_days: 7,
    targeting: {
      locations: [{ id: 'vn-ho-chi-minh', name: 'TP. Hồ Chí Minh', type: 'city' }],
      audience: { age_range: { min: 25, max: 45 }, interests: ['real estate'], behaviors: [] },
    },
    ...overrides,
  };
}

export async function estimate(user: TestUser, videoId: string, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await user.api.post('/api/v1/campaigns/estimate', estimateBody(videoId, overrides));
  if (res.status !== 200) throw new Error(`estimate failed: ${res.status} ${res.text}`);
  return res.body.data;
}

export function createBody(estimationId: string, videoId: string, payment: Record<string, unknown> = {}, budget = 1_000_000, duration = 7) {
  return {
    estimation_id: estimationId,
    video_id: videoId,
    campaign_config: {
      name: 'Spring launch',
      budget: { amount: budget, currency: 'VND' },
      duration_days: duration,
      targeting: { locations: ['vn-ho-chi-minh'], audience: { age_range: { min: 25, max: 45 }, interests: ['real estate'] } },
    },
    payment: { method: 'card', amount: budget + Math.round(budget * 0.05), payment_token: 'tok_visa', ...payment },
  };
}

export const idem = (key: string = randomUUID()) => ({ headers: { 'Idempotency-Key': key } });

/** Rows a user has in each money table. */
export async function moneyRows(server: TestServer, userId: string) {
  const [row] = await server.service.app.database.rows<{ campaigns: number; payments: number; ledger: number; keys: number }>(
    sql`select (select count(*)::int from campaigns where user_id = ${userId}) as campaigns,
               (select count(*)::int from payments where user_id = ${userId}) as payments,
               (select count(*)::int from balance_ledger where user_id = ${userId}) as ledger,
               (select count(*)::int from idempotency_keys where user_id = ${userId}) as keys`,
  );
  return { campaigns: Number(row.campaigns), payments: Number(row.payments), ledger: Number(row.ledger), keys: Number(row.keys) };
}

export async function topUp(user: TestUser, amount: number): Promise<void> {
  const res = await user.api.post('/api/v1/users/balance/top-up', { amount, payment_token: 'tok_topup', method: 'card' }, idem());
  if (res.status !== 200) throw new Error(`top-up failed: ${res.status} ${res.text}`);
}
