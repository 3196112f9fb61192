// The balance_ledger table: one row per movement of a user's balance (top-up +, campaign
// charge −, refund +), never updated; the balance is their sum.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { newId } from '../shared/ids.js';

type LedgerKind = 'top_up' | 'campaign_charge' | 'refund' | 'adjustment';

/** First key of the advisory lock pair that guards one user's balance. */
const BALANCE_LOCK_NAMESPACE = 7_100_006;

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

interface LedgerTotalsRow {
  completed: number;
  pending: number;
  last: Date | null;
  count: number;
}

export class LedgerRepository extends Repository {
  /** Serialises the movements of one user until the transaction ends. */
  async lockUser(userId: string): Promise<void> {
    await this.db.rows(sql`select pg_advisory_xact_lock(${BALANCE_LOCK_NAMESPACE}, hashtext(${userId}))`);
  }

  /** The completed balance (pending movements excluded). */
  async completedBalance(userId: string): Promise<number> {
    const [row] = await this.db.rows<{ balance: number }>(
      sql`select coalesce(sum(amount), 0)::bigint as balance from balance_ledger where user_id = ${userId} and status = 'completed'`,
    );
    return row.balance;
  }

  async append(entry: LedgerEntry): Promise<string> {
    const id = newId();
    await this.db.rows(
      sql`insert into balance_ledger (id, user_id, kind, amount, currency, payment_id, campaign_id, description)
          values (${id}, ${entry.userId}, ${entry.kind}, ${entry.amount}, ${entry.currency}, ${entry.paymentId ?? null},
                  ${entry.campaignId ?? null}, ${entry.description})`,
    );
    return id;
  }

  async totals(userId: string): Promise<LedgerTotalsRow> {
    const [row] = await this.db.rows<LedgerTotalsRow>(
      sql`select coalesce(sum(amount) filter (where status = 'completed'), 0)::bigint as completed,
                 coalesce(sum(amount) filter (where status = 'pending'), 0)::bigint as pending,
                 max(created_at) as last,
                 count(*)::int as count
          from balance_ledger where user_id = ${userId}`,
    );
    return row;
  }
}
