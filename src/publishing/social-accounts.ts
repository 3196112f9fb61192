// Linked platform accounts: one per user and platform, tokens sealed at rest (src/shared/token-cipher.ts).
// Each sealed value is bound to its user, platform and kind.
import type { Platform, PlatformTokens } from './platforms.js';
import type { SealedTokens, SocialAccountRepository } from './social-account-repository.js';
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

const context = (userId: string, platform: Platform, kind: 'access' | 'refresh') => `social-account:${userId}:${platform}:${kind}`;
const secondsFromNow = (s: number | null) => (s === null ? null : new Date(Date.now() + s * 1000).toISOString());

export class SocialAccounts {
  constructor(
    private readonly accounts: SocialAccountRepository,
    private readonly cipher: TokenCipher,
  ) {}

  private seal(userId: string, platform: Platform, tokens: PlatformTokens): SealedTokens {
    return {
      scope: tokens.scope,
      accessTokenSealed: this.cipher.seal(tokens.accessToken, context(userId, platform, 'access')),
      refreshTokenSealed: tokens.refreshToken ? this.cipher.seal(tokens.refreshToken, context(userId, platform, 'refresh')) : null,
      accessExpiresAt: secondsFromNow(tokens.expiresIn),
      refreshExpiresAt: secondsFromNow(tokens.refreshExpiresIn),
    };
  }

  /** Links (or re-links) the account after a code exchange. */
  async link(userId: string, platform: Platform, tokens: PlatformTokens): Promise<LinkedAccount> {
    await this.accounts.upsert(userId, platform, tokens.externalId, this.seal(userId, platform, tokens));
    return (await this.find(userId, platform))!;
  }

  /** Stores the result of a refresh (Google keeps the old refresh token: it sends none). */
  async storeRefreshed(userId: string, platform: Platform, tokens: PlatformTokens): Promise<void> {
    await this.accounts.updateTokens(userId, platform, this.seal(userId, platform, tokens));
  }

  async find(userId: string, platform: Platform): Promise<LinkedAccount | null> {
    const row = await this.accounts.find(userId, platform);
    if (!row) return null;
    return {
      userId,
      platform,
      externalId: row.external_id,
      scope: row.scope,
      accessToken: this.cipher.open(row.access_token_enc, context(userId, platform, 'access')),
      refreshToken: row.refresh_token_enc ? this.cipher.open(row.refresh_token_enc, context(userId, platform, 'refresh')) : null,
      accessExpiresAt: row.access_expires_at,
      refreshExpiresAt: row.refresh_expires_at,
    };
  }

  /** Forgets the link (and its tokens); false when there was none. */
  unlink(userId: string, platform: Platform): Promise<boolean> {
    return this.accounts.delete(userId, platform);
  }

  async list(userId: string): Promise<{ platform: Platform; external_id: string | null; scope: string; linked_at: string; updated_at: string }[]> {
    const rows = await this.accounts.listByUser(userId);
    return rows.map((r) => ({
      platform: r.platform,
      external_id: r.external_id,
      scope: r.scope,
      linked_at: r.created_at.toISOString(),
      updated_at: r.updated_at.toISOString(),
    }));
  }
}
