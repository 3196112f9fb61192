// Drizzle mirror of migrations/0005_settings.sql (the SQL file is the source of truth).
import { pgTable, uuid, text, integer, bigint, timestamp, jsonb, date, smallint, primaryKey, unique } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const userSettings = pgTable('user_settings', {
  userId: uuid('user_id').primaryKey(),
  overrides: jsonb('overrides').notNull().default({}),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const twoFactorCredentials = pgTable('two_factor_credentials', {
  userId: uuid('user_id').primaryKey(),
  secretEncrypted: text('secret_encrypted').notNull(),
  lastUsedStep: bigint('last_used_step', { mode: 'number' }).notNull().default(0),
  failedAttempts: integer('failed_attempts').notNull().default(0),
  lockedUntil: timestamp('locked_until', { withTimezone: true }),
  createdAt: createdAt(),
});

export const twoFactorBackupCodes = pgTable(
  'two_factor_backup_codes',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id').notNull(),
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [unique().on(t.userId, t.codeHash)],
);

export const dailyStats = pgTable(
  'daily_stats',
  {
    userId: uuid('user_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    posts: integer('posts').notNull().default(0),
    followers: integer('followers').notNull().default(0),
    following: integer('following').notNull().default(0),
    reactions: integer('reactions').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day] })],
);

export const dailyStatsWatermark = pgTable('daily_stats_watermark', {
  id: smallint('id').primaryKey().default(1),
  rolledThrough: date('rolled_through', { mode: 'string' }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const scheduledJobRuns = pgTable('scheduled_job_runs', {
  jobName: text('job_name').primaryKey(),
  lastStartedAt: timestamp('last_started_at', { withTimezone: true }),
  lastSuccessAt: timestamp('last_success_at', { withTimezone: true }),
  lastFailureAt: timestamp('last_failure_at', { withTimezone: true }),
  lastError: text('last_error'),
  runs: integer('runs').notNull().default(0),
});
