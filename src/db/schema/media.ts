// Drizzle mirror of migrations/0003_media.sql (the SQL file is the source of truth).
import { pgTable, uuid, text, bigint, integer, jsonb, timestamp } from 'drizzle-orm/pg-core';

export const uploadedFiles = pgTable('uploaded_files', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull(),
  kind: text('kind').notNull(),
  path: text('path').notNull(),
  mimeType: text('mime_type').notNull(),
  size: bigint('size', { mode: 'number' }).notNull(),
  originalName: text('original_name').notNull().default(''),
  metadata: jsonb('metadata').notNull().default({}),
  clientMetadata: jsonb('client_metadata').notNull().default({}),
  processingStatus: text('processing_status').notNull().default('completed'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const videoJobs = pgTable('video_jobs', {
  id: uuid('id').primaryKey(),
  contentId: uuid('content_id').notNull(),
  status: text('status').notNull().default('queued'),
  inputPath: text('input_path').notNull(),
  attempts: integer('attempts').notNull().default(0),
  maxAttempts: integer('max_attempts').notNull().default(3),
  lockedBy: text('locked_by'),
  leaseUntil: timestamp('lease_until', { withTimezone: true }),
  heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }),
  runAfter: timestamp('run_after', { withTimezone: true }).notNull().defaultNow(),
  lastError: text('last_error'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  startedAt: timestamp('started_at', { withTimezone: true }),
  finishedAt: timestamp('finished_at', { withTimezone: true }),
});
