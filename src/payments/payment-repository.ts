// The payments table: one row per payment taken (by the provider or from the balance); its
// receipt is read from the same row.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';

interface PaymentRow {
  id: string;
  user_id: string;
  campaign_id: string | null;
  purpose: string;
  method: string;
  amount: number;
  budget_amount: number;
  platform_fee: number;
  currency: string;
  status: string;
  receipt_id: string;
  created_at: Date;
}

interface NewPayment {
  id: string;
  userId: string;
  campaignId: string | null;
  purpose: string;
  method: string;
  amount: number;
  budgetAmount: number;
  platformFee: number;
  currency: string;
  provider: string;
  providerReference: string | null;
  receiptId: string;
}

export class PaymentRepository extends Repository {
  async insertCompleted(p: NewPayment): Promise<void> {
    await this.db.rows(
      sql`insert into payments (id, user_id, campaign_id, purpose, method, amount, budget_amount, platform_fee, currency,
                                status, provider, provider_reference, receipt_id)
          values (${p.id}, ${p.userId}, ${p.campaignId}, ${p.purpose}, ${p.method}, ${p.amount}, ${p.budgetAmount},
                  ${p.platformFee}, ${p.currency}, 'completed', ${p.provider}, ${p.providerReference}, ${p.receiptId})`,
    );
  }

  async findById(id: string): Promise<PaymentRow | undefined> {
    const [row] = await this.db.rows<PaymentRow>(
      sql`select id, user_id, receipt_id, status, purpose, method, amount, budget_amount, platform_fee, currency, campaign_id, created_at
          from payments where id = ${id}`,
    );
    return row;
  }
}
