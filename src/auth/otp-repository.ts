// Queries on the `otp_codes` table (migration 0001). Expiry and the sending windows are measured
// with the database's now(), so every node agrees on them.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { sqlList } from '../db/sql-fragments.js';

interface NewOtpCode {
  id: string;
  phoneNumber: string;
  purpose: string;
  codeHash: string;
  ttlSeconds: number;
}

interface LatestCodeRow {
  id: string;
  code_hash: string;
  expired: boolean;
  consumed: boolean;
}

export class OtpRepository extends Repository {
  /** Codes created for (number, purpose) in the last hour. */
  async countLastHour(phoneNumber: string, purpose: string): Promise<number> {
    const [row] = await this.db.rows<{ n: number }>(sql`
      select count(*)::int as n from otp_codes
      where phone_number = ${phoneNumber} and purpose = ${purpose} and created_at > now() - interval '1 hour'`);
    return row.n;
  }

  /**
   * Codes created for the number (any purpose) in the last day, and the seconds until the oldest
   * of them leaves that window (null when there is none).
   */
  async countLastDay(phoneNumber: string): Promise<{ n: number; retry_after: number | null }> {
    const [row] = await this.db.rows<{ n: number; retry_after: number | null }>(sql`
      select count(*)::int as n,
             ceil(extract(epoch from min(created_at) + interval '1 day' - now()))::int as retry_after
      from otp_codes where phone_number = ${phoneNumber} and created_at > now() - interval '1 day'`);
    return row;
  }

  async insert(code: NewOtpCode): Promise<void> {
    await this.db.rows(sql`
      insert into otp_codes (id, phone_number, purpose, code_hash, expires_at)
      values (${code.id}, ${code.phoneNumber}, ${code.purpose}, ${code.codeHash}, now() + make_interval(secs => ${code.ttlSeconds}))`);
  }

  /** The newest code for the number among `purposes`. */
  async findLatest(phoneNumber: string, purposes: string[]): Promise<LatestCodeRow | undefined> {
    const [row] = await this.db.rows<LatestCodeRow>(sql`
      select id, code_hash, expires_at < now() as expired, consumed_at is not null as consumed
      from otp_codes where phone_number = ${phoneNumber} and purpose in (${sqlList(purposes)})
      order by created_at desc limit 1`);
    return row;
  }

  /** Counts one try on an unconsumed code with fewer than `maxAttempts` tries; false when refused. */
  async claimAttempt(id: string, maxAttempts: number): Promise<boolean> {
    const rows = await this.db.rows<{ attempts: number }>(sql`
      update otp_codes set attempts = attempts + 1
      where id = ${id} and attempts < ${maxAttempts} and consumed_at is null
      returning attempts`);
    return rows.length > 0;
  }

  /** Marks the code used; false when it already was. */
  async consume(id: string): Promise<boolean> {
    const rows = await this.db.rows<{ id: string }>(sql`
      update otp_codes set consumed_at = now() where id = ${id} and consumed_at is null returning id`);
    return rows.length > 0;
  }

  /** Erasure (CONTRACT §22): every one-time code sent to the number. */
  async deleteForPhone(phoneNumber: string): Promise<void> {
    await this.db.rows(sql`delete from otp_codes where phone_number = ${phoneNumber}`);
  }
}
