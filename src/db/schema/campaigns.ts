// Drizzle mirror of migrations/0006_campaigns.sql (the SQL file is the source of truth).
// Money columns are bigint VND, read as JS numbers (amounts stay far below 2^53).
import { pgTable, uuid, text, timestamp, integer, bigint, jsonb, primaryKey } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const money = (name: string) => bigint(name, { mode: 'number' });

export const campaignEstimations = pgTable('campaign_estimations', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull(),
  videoId: uuid('video_id').notNull(),
  budgetAmount: money('budget_amount').notNull(),
  currency: text('currency').notNull(),
  durationDays: integer('duration_days').notNull(),
  targeting: jsonb('targeting').notNull(),
  result: jsonb('result').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
  createdAt: createdAt(),
});

export const campaigns = pgTable('campaigns', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull(),
  videoId: uuid('video_id').notNull(),
  estimationId: uuid('estimation_id'),
  name: text('name').notNull(),
  source: text('source').notNull(),
  boostType: text('boost_type'),
  status: text('status').notNull(),
  budgetAmount: money('budget_amount').notNull(),
  platformFee: money('platform_fee').notNull(),
  currency: text('currency').notNull(),
  durationDays: integer('duration_days').notNull(),
  targeting: jsonb('targeting').notNull(),
  estimate: jsonb('estimate'),
  launchTime: timestamp('launch_time', { withTimezone: true }).notNull(),
  endsAt: timestamp('ends_at', { withTimezone: true }).notNull(),
  pausedAt: timestamp('paused_at', { withTimezone: true }),
  completedAt: timestamp('completed_at', { withTimezone: true }),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const payments = pgTable('payments', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull(),
  campaignId: uuid('campaign_id'),
  purpose: text('purpose').notNull(),
  method: text('method').notNull(),
  amount: money('amount').notNull(),
  budgetAmount: money('budget_amount').notNull().default(0),
  platformFee: money('platform_fee').notNull().default(0),
  currency: text('currency').notNull(),
  status: text('status').notNull(),
  provider: text('provider').notNull(),
  providerReference: text('provider_reference'),
  receiptId: text('receipt_id').notNull().unique(),
  createdAt: createdAt(),
});

export const balanceLedger = pgTable('balance_ledger', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull(),
  kind: text('kind').notNull(),
  amount: money('amount').notNull(),
  currency: text('currency').notNull(),
  status: text('status').notNull().default('completed'),
  paymentId: uuid('payment_id'),
  campaignId: uuid('campaign_id'),
  description: text('description').notNull().default(''),
  createdAt: createdAt(),
});

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    userId: uuid('user_id').notNull(),
    key: text('key').notNull(),
    scope: text('scope').notNull(),
    requestHash: text('request_hash').notNull(),
    responseStatus: integer('response_status'),
    responseBody: jsonb('response_body'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] })],
);
