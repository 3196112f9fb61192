// The account balance is a ledger: one row per movement (top-up +, campaign charge −, refund +),
// never updated; the balance is their sum. Movements of one user are serialised by a
// transaction-scoped advisory lock, so two concurrent debits cannot both spend the same money.
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../db/client.js';
import { newId } from '../shared/ids.js';
import { insufficientFunds } from './provider.js';
import { rowsOf, toAmount, toIso, type SqlExecutor } from './sql-rows.js';

export type LedgerKind = 'top_up' | 'campaign_charge' | 'refund' | 'adjustment';

/** First key of the advisory lock pair that guards one user's balance. */
const BALANCE_LOCK_NAMESPACE = 7_100_006;

/** Methods a balance can be topped up with (`balance` itself cannot top up a balance). */
export const TOP_UP_METHODS = ['card', 'paypal', 'crypto'] as const;

export async function lockBalance(tx: SqlExecutor, userId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${BALANCE_LOCK_NAMESPACE}, hashtext(${userId}))`);
}

/** The completed balance (pending movements excluded). Call under `lockBalance` before a debit. */
export async function completedBalance(tx: SqlExecutor, userId: string): Promise<number> {
  const [row] = await rowsOf<{ balance: unknown }>(
    tx,
    sql`select coalesce(sum(amount), 0)::bigint as balance from balance_ledger where user_id = ${userId} and status = 'completed'`,
  );
  return toAmount(row?.balance);
}

export interface LedgerEntry {
  userId: string;
  kind: LedgerKind;
  /** Signed: positive adds to the balance, negative takes from it. */
  amount: number;
  currency: string;
  paymentId?: string | null;
  campaignId?: string | null;
  description: string;
}

export async function appendLedgerEntry(tx: SqlExecutor, entry: LedgerEntry): Promise<string> {
  const id = newId();
  await tx.execute(
    sql`insert into balance_ledger (id, user_id, kind, amount, currency, payment_id, campaign_id, description)
        values (${id}, ${entry.userId}, ${entry.kind}, ${entry.amount}, ${entry.currency}, ${entry.paymentId ?? null},
                ${entry.campaignId ?? null}, ${entry.description})`,
  );
  return id;
}

/** Takes `amount` from the balance or throws 402 `payment.error.insufficient_funds` (nothing written). */
export async function debitBalance(tx: SqlExecutor, entry: Omit<LedgerEntry, 'amount'> & { amount: number }): Promise<string> {
  await lockBalance(tx, entry.userId);
  const balance = await completedBalance(tx, entry.userId);
  if (balance < entry.amount) throw insufficientFunds();
  return appendLedgerEntry(tx, { ...entry, amount: -entry.amount });
}

export interface BalanceSummary {
  current_balance: number;
  currency: string;
  pending_amount: number;
  last_updated: string | null;
  transactions_count: number;
  top_up_methods: string[];
}

export async function balanceSummary(database: Pick<DatabaseHandle, 'rows'>, userId: string, currency: string): Promise<BalanceSummary> {
  const [row] = await database.rows<{ completed: unknown; pending: unknown; last: unknown; count: unknown }>(
    sql`select coalesce(sum(amount) filter (where status = 'completed'), 0)::bigint as completed,
               coalesce(sum(amount) filter (where status = 'pending'), 0)::bigint as pending,
               max(created_at) as last,
               count(*)::int as count
        from balance_ledger where user_id = ${userId}`,
  );
  return {
    current_balance: toAmount(row?.completed),
    currency,
    pending_amount: toAmount(row?.pending),
    last_updated: toIso(row?.last),
    transactions_count: Number(row?.count ?? 0),
    top_up_methods: [...TOP_UP_METHODS],
  };
}
