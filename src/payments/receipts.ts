// A payment's receipt (the `receipt_url` of every payment answer), for its owner only.
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../db/client.js';
import { forbidden, notFound } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { toAmount, toIso } from './sql-rows.js';

export interface Receipt {
  receipt_id: string;
  transaction_id: string;
  status: string;
  purpose: string;
  payment_method: string;
  amount_charged: number;
  campaign_budget: number;
  platform_fee: number;
  currency: string;
  campaign_id: string | null;
  created_at: string;
}

export async function getReceipt(database: Pick<DatabaseHandle, 'rows'>, userId: string, transactionId: string): Promise<Receipt> {
  const missing = () => notFound('payment.error.not_found', 'No such payment', { field: 'transactionId', constraint: 'exists' });
  if (!isUuid(transactionId)) throw missing();
  const [row] = await database.rows<Record<string, unknown>>(
    sql`select id, user_id, receipt_id, status, purpose, method, amount, budget_amount, platform_fee, currency, campaign_id, created_at
        from payments where id = ${transactionId}`,
  );
  if (!row) throw missing();
  if (row.user_id !== userId) throw forbidden('payment.error.forbidden', 'This payment belongs to another user');
  return {
    receipt_id: String(row.receipt_id),
    transaction_id: String(row.id),
    status: String(row.status),
    purpose: String(row.purpose),
    payment_method: String(row.method),
    amount_charged: toAmount(row.amount),
    campaign_budget: toAmount(row.budget_amount),
    platform_fee: toAmount(row.platform_fee),
    currency: String(row.currency),
    campaign_id: (row.campaign_id as string | null) ?? null,
    created_at: toIso(row.created_at)!,
  };
}
