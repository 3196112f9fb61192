// Drizzle mirror of migrations/0007_publishing.sql (the SQL file is the source of truth).
import { pgTable, uuid, text, timestamp, unique, index } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true });

export const socialAccounts = pgTable(
  'social_accounts',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id').notNull(),
    platform: text('platform').notNull(),
    externalId: text('external_id'),
    scope: text('scope').notNull().default(''),
    accessTokenEnc: text('access_token_enc').notNull(),
    refreshTokenEnc: text('refresh_token_enc'),
    accessExpiresAt: ts('access_expires_at'),
    refreshExpiresAt: ts('refresh_expires_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [unique().on(t.userId, t.platform)],
);

export const socialOauthStates = pgTable(
  'social_oauth_states',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id').notNull(),
    platform: text('platform').notNull(),
    codeVerifierEnc: text('code_verifier_enc').notNull(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('social_oauth_states_expires_idx').on(t.expiresAt)],
);

export const socialPublications = pgTable(
  'social_publications',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id').notNull(),
    contentId: uuid('content_id').notNull(),
    platform: text('platform').notNull(),
    remoteId: text('remote_id'),
    status: text('status').notNull(),
    error: text('error'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [index('social_publications_user_idx').on(t.userId, t.createdAt), index('social_publications_content_idx').on(t.contentId)],
);
