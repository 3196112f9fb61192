// The social_oauth_states table: one row per authorization started, holding its sealed PKCE
// verifier until the state is used or expires.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import type { Platform } from './platforms.js';

interface NewOAuthState {
  id: string;
  userId: string;
  platform: Platform;
  codeVerifierSealed: string;
  ttlSeconds: number;
}

export class OAuthStateRepository extends Repository {
  /** Deletes states expired for more than a day. */
  async deleteLongExpired(): Promise<void> {
    await this.db.rows(sql`delete from social_oauth_states where expires_at < now() - interval '1 day'`);
  }

  async insert(s: NewOAuthState): Promise<void> {
    await this.db.rows(sql`
      insert into social_oauth_states (id, user_id, platform, code_verifier_enc, expires_at)
      values (${s.id}, ${s.userId}, ${s.platform}, ${s.codeVerifierSealed}, now() + make_interval(secs => ${s.ttlSeconds}))`);
  }

  /** Marks an unused state used (atomically: one caller wins); undefined when there is no such unused state. */
  async markUsed(id: string, userId: string, platform: Platform): Promise<{ code_verifier_enc: string; expired: boolean } | undefined> {
    const [row] = await this.db.rows<{ code_verifier_enc: string; expired: boolean }>(sql`
      update social_oauth_states set used_at = now()
      where id = ${id}::uuid and user_id = ${userId}::uuid and platform = ${platform} and used_at is null
      returning code_verifier_enc, (expires_at <= now()) as expired`);
    return row;
  }

  /** True when the user's state exists and was used already. */
  async wasUsed(id: string, userId: string): Promise<boolean> {
    const [row] = await this.db.rows<{ used: boolean }>(sql`
      select used_at is not null as used from social_oauth_states where id = ${id}::uuid and user_id = ${userId}::uuid`);
    return row?.used ?? false;
  }

  /** Erasure (CONTRACT §22): the user's pending OAuth states. */
  async deleteAllOf(userId: string): Promise<void> {
    await this.db.rows(sql`delete from social_oauth_states where user_id = ${userId}`);
  }
}
