// Linked platform accounts: one per user and platform, tokens sealed at rest (src/shared/token-cipher.ts).
// Each sealed value is bound to its user, platform and kind.
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../db/client.js';
import { newId } from '../shared/ids.js';
import type { Platform, PlatformTokens } from './platforms.js';
import type { TokenCipher } from '../shared/token-cipher.js';

export interface LinkedAccount {
  userId: string;
  platform: Platform;
  externalId: string | null;
  scope: string;
  accessToken: string;
  refreshToken: string | null;
  accessExpiresAt: Date | null;
  refreshExpiresAt: Date | null;
}

interface AccountRow {
  external_id: string | null;
  scope: string;
  access_token_enc: string;
  refresh_token_enc: string | null;
  access_expires_at: Date | string | null;
  refresh_expires_at: Date | string | null;
}

const context = (userId: string, platform: Platform, kind: 'access' | 'refresh') => `social-account:${userId}:${platform}:${kind}`;
const toDate = (v: Date | string | null) => (v === null ? null : new Date(v));
const secondsFromNow = (s: number | null) => (s === null ? null : new Date(Date.now() + s * 1000).toISOString());

export class SocialAccounts {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly cipher: TokenCipher,
  ) {}

  /** Links (or re-links) the account after a code exchange. */
  async link(userId: string, platform: Platform, tokens: PlatformTokens): Promise<LinkedAccount> {
    const refreshEnc = tokens.refreshToken ? this.cipher.seal(tokens.refreshToken, context(userId, platform, 'refresh')) : null;
    await this.database.rows(sql`
      insert into social_accounts (id, user_id, platform, external_id, scope, access_token_enc, refresh_token_enc, access_expires_at, refresh_expires_at)
      values (${newId()}, ${userId}, ${platform}, ${tokens.externalId}, ${tokens.scope},
              ${this.cipher.seal(tokens.accessToken, context(userId, platform, 'access'))}, ${refreshEnc},
              ${secondsFromNow(tokens.expiresIn)}, ${secondsFromNow(tokens.refreshExpiresIn)})
      on conflict (user_id, platform) do update set
        external_id = coalesce(excluded.external_id, social_accounts.external_id),
        scope = excluded.scope,
        access_token_enc = excluded.access_token_enc,
        refresh_token_enc = coalesce(excluded.refresh_token_enc, social_accounts.refresh_token_enc),
        access_expires_at = excluded.access_expires_at,
        refresh_expires_at = case when excluded.refresh_token_enc is null then social_accounts.refresh_expires_at else excluded.refresh_expires_at end,
        updated_at = now()`);
    return (await this.find(userId, platform))!;
  }

  /** Stores the result of a refresh (Google keeps the old refresh token: it sends none). */
  async storeRefreshed(userId: string, platform: Platform, tokens: PlatformTokens): Promise<void> {
    const refreshEnc = tokens.refreshToken ? this.cipher.seal(tokens.refreshToken, context(userId, platform, 'refresh')) : null;
    await this.database.rows(sql`
      update social_accounts set
        access_token_enc = ${this.cipher.seal(tokens.accessToken, context(userId, platform, 'access'))},
        access_expires_at = ${secondsFromNow(tokens.expiresIn)},
        refresh_token_enc = coalesce(${refreshEnc}, refresh_token_enc),
        refresh_expires_at = case when ${refreshEnc}::text is null then refresh_expires_at else ${secondsFromNow(tokens.refreshExpiresIn)}::timestamptz end,
        scope = case when ${tokens.scope} = '' then scope else ${tokens.scope} end,
        updated_at = now()
      where user_id = ${userId} and platform = ${platform}`);
  }

  async find(userId: string, platform: Platform): Promise<LinkedAccount | null> {
    const [row] = await this.database.rows<AccountRow>(sql`
      select external_id, scope, access_token_enc, refresh_token_enc, access_expires_at, refresh_expires_at
      from social_accounts where user_id = ${userId} and platform = ${platform}`);
    if (!row) return null;
    return {
      userId,
      platform,
      externalId: row.external_id,
      scope: row.scope,
      accessToken: this.cipher.open(row.access_token_enc, context(userId, platform, 'access')),
      refreshToken: row.refresh_token_enc ? this.cipher.open(row.refresh_token_enc, context(userId, platform, 'refresh')) : null,
      accessExpiresAt: toDate(row.access_expires_at),
      refreshExpiresAt: toDate(row.refresh_expires_at),
    };
  }

  /** The platform revoked the grant: the link is gone until the user links again. */
  async unlink(userId: string, platform: Platform): Promise<boolean> {
    const rows = await this.database.rows(sql`delete from social_accounts where user_id = ${userId} and platform = ${platform} returning id`);
    return rows.length > 0;
  }

  async list(userId: string): Promise<{ platform: Platform; external_id: string | null; scope: string; linked_at: string; updated_at: string }[]> {
    const rows = await this.database.rows<{ platform: Platform; external_id: string | null; scope: string; created_at: Date | string; updated_at: Date | string }>(sql`
      select platform, external_id, scope, created_at, updated_at from social_accounts where user_id = ${userId} order by platform`);
    return rows.map((r) => ({
      platform: r.platform,
      external_id: r.external_id,
      scope: r.scope,
      linked_at: new Date(r.created_at).toISOString(),
      updated_at: new Date(r.updated_at).toISOString(),
    }));
  }
}
