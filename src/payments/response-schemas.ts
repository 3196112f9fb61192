// The `data` of the balance, receipt and top-up answers as zod schemas, for the OpenAPI document
// and the typed client, and the payment parts the campaign answers embed (src/campaigns/
// response-schemas.ts); the services answer with these schemas' output types (declared once).
import { z } from 'zod';

const paymentFields = {
  transaction_id: z.string(),
  status: z.literal('completed'),
  amount_charged: z.number(),
  payment_method: z.string(),
};
export const paymentLink = z.object({ ...paymentFields, receipt_url: z.string() });
export const paymentView = { ...paymentFields, receipt: z.object({ id: z.string(), url: z.string(), email_sent: z.boolean() }) };

export const balanceSchema = z.object({
  current_balance: z.number(),
  currency: z.string(),
  pending_amount: z.number(),
  last_updated: z.string().nullable().describe('Time of the last movement; null when there is none'),
  transactions_count: z.number(),
  top_up_methods: z.array(z.string()),
});

export const receiptSchema = z.object({
  receipt_id: z.string(),
  transaction_id: z.string(),
  status: z.string(),
  purpose: z.string(),
  payment_method: z.string(),
  amount_charged: z.number(),
  campaign_budget: z.number(),
  platform_fee: z.number(),
  currency: z.string(),
  campaign_id: z.string().nullable(),
  created_at: z.string(),
});

export const topUpResultSchema = z.object({ ...paymentView, balance: balanceSchema });

export type BalanceSummary = z.output<typeof balanceSchema>;
export type Receipt = z.output<typeof receiptSchema>;
export type TopUpResult = z.output<typeof topUpResultSchema>;
