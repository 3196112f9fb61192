// The queries of two-factor authentication (tables of migration 0005: two_factor_credentials,
// two_factor_backup_codes). Constructed on the database or on a transaction.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { newId } from '../shared/ids.js';

/** What a code check claimed: the try was counted, and the secret to compare the code with. */
interface ClaimedAttempt {
  failed_attempts: number;
  secret_encrypted: string;
}

export class TwoFactorRepository extends Repository {
  /** Replaces the user's secret and backup codes (hashes) with new ones. */
  async replaceCredentials(userId: string, secretEncrypted: string, backupCodeHashes: string[]): Promise<void> {
    await this.deleteCredentials(userId);
    await this.db.rows(sql`insert into two_factor_credentials (user_id, secret_encrypted) values (${userId}, ${secretEncrypted})`);
    const values = backupCodeHashes.map((hash) => sql`(${newId()}, ${userId}, ${hash})`);
    await this.db.rows(sql`insert into two_factor_backup_codes (id, user_id, code_hash) values ${sql.join(values, sql`, `)}`);
  }

  async deleteCredentials(userId: string): Promise<void> {
    await this.db.rows(sql`delete from two_factor_credentials where user_id = ${userId}`);
    await this.db.rows(sql`delete from two_factor_backup_codes where user_id = ${userId}`);
  }

  /** Counts one try, unless the user is locked (or has no credentials): then undefined. */
  async claimAttempt(userId: string): Promise<ClaimedAttempt | undefined> {
    const [claimed] = await this.db.rows<ClaimedAttempt>(sql`
      update two_factor_credentials set failed_attempts = failed_attempts + 1
      where user_id = ${userId} and (locked_until is null or locked_until <= now())
      returning failed_attempts, secret_encrypted`);
    return claimed;
  }

  /** Whole seconds the lock still holds (0 or less when over); undefined without credentials. */
  async lockSecondsLeft(userId: string): Promise<number | undefined> {
    const [lock] = await this.db.rows<{ seconds: number }>(sql`
      select ceil(extract(epoch from locked_until - now()))::int as seconds
      from two_factor_credentials where user_id = ${userId}`);
    return lock?.seconds;
  }

  async resetFailedAttempts(userId: string): Promise<void> {
    await this.db.rows(sql`update two_factor_credentials set failed_attempts = 0 where user_id = ${userId}`);
  }

  async lock(userId: string, seconds: number): Promise<void> {
    await this.db.rows(sql`
      update two_factor_credentials
      set locked_until = now() + make_interval(secs => ${seconds}), failed_attempts = 0
      where user_id = ${userId}`);
  }

  /** Records `step` as the last accepted TOTP step; false when it is not later than the last one. */
  async acceptTotpStep(userId: string, step: number): Promise<boolean> {
    const accepted = await this.db.rows<{ user_id: string }>(sql`
      update two_factor_credentials set last_used_step = ${step}
      where user_id = ${userId} and last_used_step < ${step} returning user_id`);
    return accepted.length > 0;
  }

  /** Marks the unused backup code of this hash used; false when there is none. */
  async consumeBackupCode(userId: string, codeHash: string): Promise<boolean> {
    const used = await this.db.rows<{ id: string }>(sql`
      update two_factor_backup_codes set used_at = now()
      where user_id = ${userId} and code_hash = ${codeHash} and used_at is null returning id`);
    return used.length > 0;
  }

  /** Erasure (CONTRACT §22): the user's two-factor credentials and backup codes. */
  async deleteAllOf(userId: string): Promise<void> {
    await this.db.rows(sql`delete from two_factor_backup_codes where user_id = ${userId}`);
    await this.db.rows(sql`delete from two_factor_credentials where user_id = ${userId}`);
  }
}
