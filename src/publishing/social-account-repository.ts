// The social_accounts table: one linked platform account per user and platform, tokens stored
// sealed (the sealing is the caller's: src/publishing/social-accounts.ts).
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { newId } from '../shared/ids.js';
import type { Platform } from './platforms.js';

interface SocialAccountRow {
  external_id: string | null;
  scope: string;
  access_token_enc: string;
  refresh_token_enc: string | null;
  access_expires_at: Date | null;
  refresh_expires_at: Date | null;
}

interface SocialAccountListRow {
  platform: Platform;
  external_id: string | null;
  scope: string;
  created_at: Date;
  updated_at: Date;
}

/** Sealed tokens and when they lapse (ISO timestamps; null when the platform did not say). */
export interface SealedTokens {
  scope: string;
  accessTokenSealed: string;
  refreshTokenSealed: string | null;
  accessExpiresAt: string | null;
  refreshExpiresAt: string | null;
}

export class SocialAccountRepository extends Repository {
  /** Inserts the link, or replaces the tokens of an existing one (keeping the refresh token when none came). */
  async upsert(userId: string, platform: Platform, externalId: string | null, t: SealedTokens): Promise<void> {
    await this.db.rows(sql`
      insert into social_accounts (id, user_id, platform, external_id, scope, access_token_enc, refresh_token_enc, access_expires_at, refresh_expires_at)
      values (${newId()}, ${userId}, ${platform}, ${externalId}, ${t.scope}, ${t.accessTokenSealed}, ${t.refreshTokenSealed},
              ${t.accessExpiresAt}, ${t.refreshExpiresAt})
      on conflict (user_id, platform) do update set
        external_id = coalesce(excluded.external_id, social_accounts.external_id),
        scope = excluded.scope,
        access_token_enc = excluded.access_token_enc,
        refresh_token_enc = coalesce(excluded.refresh_token_enc, social_accounts.refresh_token_enc),
        access_expires_at = excluded.access_expires_at,
        refresh_expires_at = case when excluded.refresh_token_enc is null then social_accounts.refresh_expires_at else excluded.refresh_expires_at end,
        updated_at = now()`);
  }

  /** Stores refreshed tokens; keeps the refresh token (and its expiry) when none came, and the scope when it is empty. */
  async updateTokens(userId: string, platform: Platform, t: SealedTokens): Promise<void> {
    await this.db.rows(sql`
      update social_accounts set
        access_token_enc = ${t.accessTokenSealed},
        access_expires_at = ${t.accessExpiresAt},
        refresh_token_enc = coalesce(${t.refreshTokenSealed}, refresh_token_enc),
        refresh_expires_at = case when ${t.refreshTokenSealed}::text is null then refresh_expires_at else ${t.refreshExpiresAt}::timestamptz end,
        scope = case when ${t.scope} = '' then scope else ${t.scope} end,
        updated_at = now()
      where user_id = ${userId} and platform = ${platform}`);
  }

  async find(userId: string, platform: Platform): Promise<SocialAccountRow | undefined> {
    const [row] = await this.db.rows<SocialAccountRow>(sql`
      select external_id, scope, access_token_enc, refresh_token_enc, access_expires_at, refresh_expires_at
      from social_accounts where user_id = ${userId} and platform = ${platform}`);
    return row;
  }

  /** False when there was no such link. */
  async delete(userId: string, platform: Platform): Promise<boolean> {
    const rows = await this.db.rows(sql`delete from social_accounts where user_id = ${userId} and platform = ${platform} returning id`);
    return rows.length > 0;
  }

  listByUser(userId: string): Promise<SocialAccountListRow[]> {
    return this.db.rows<SocialAccountListRow>(sql`
      select platform, external_id, scope, created_at, updated_at from social_accounts where user_id = ${userId} order by platform`);
  }

  /** Erasure (CONTRACT §22): the user's linked TikTok/YouTube accounts and their tokens. */
  async deleteAllOf(userId: string): Promise<void> {
    await this.db.rows(sql`delete from social_accounts where user_id = ${userId}`);
  }
}
