// The `account_erasures` table (migration 0026): one durable job per deleted account. A worker on
// any node claims a job with a lease (FOR UPDATE SKIP LOCKED), extends it after each step, records
// each step done, and a job whose worker died is claimed again once its lease has passed.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';

export interface ErasureJobRow {
  user_id: string;
  steps_done: string[];
  attempts: number;
}

export class ErasureRepository extends Repository {
  /** Schedules the erasure of the user (once); answers the time it will have run by. */
  async schedule(userId: string, withinSeconds: number): Promise<Date> {
    const [row] = await this.db.rows<{ due_by: Date }>(sql`
      with inserted as (
        insert into account_erasures (user_id, due_by) values (${userId}, now() + make_interval(secs => ${withinSeconds}))
        on conflict (user_id) do nothing returning due_by)
      select due_by from inserted union all select due_by from account_erasures where user_id = ${userId} limit 1`);
    return row.due_by;
  }

  /** Claims the oldest open job that no live worker holds, for `leaseSeconds`. */
  async claimNext(worker: string, leaseSeconds: number): Promise<ErasureJobRow | undefined> {
    const [row] = await this.db.rows<ErasureJobRow>(sql`
      update account_erasures set claimed_by = ${worker}, claimed_until = now() + make_interval(secs => ${leaseSeconds}), attempts = attempts + 1
      where user_id = (
        select user_id from account_erasures
        where finished_at is null and (claimed_until is null or claimed_until < now())
        order by requested_at limit 1 for update skip locked)
      returning user_id, steps_done, attempts`);
    return row;
  }

  /** Records `step` done and extends the claim; false when the worker no longer holds the job. */
  async stepDone(userId: string, worker: string, step: string, leaseSeconds: number): Promise<boolean> {
    const rows = await this.db.rows<{ user_id: string }>(sql`
      update account_erasures
      set steps_done = case when ${step} = any(steps_done) then steps_done else array_append(steps_done, ${step}::text) end,
          claimed_until = now() + make_interval(secs => ${leaseSeconds})
      where user_id = ${userId} and claimed_by = ${worker} and finished_at is null
      returning user_id`);
    return rows.length > 0;
  }

  async finish(userId: string, worker: string): Promise<void> {
    await this.db.rows(sql`
      update account_erasures set finished_at = now(), claimed_by = null, claimed_until = null, last_error = null
      where user_id = ${userId} and claimed_by = ${worker}`);
  }

  /** A step failed: the job is left to be claimed again after `retryInSeconds`. The error is a message, never personal data. */
  async failed(userId: string, worker: string, error: string, retryInSeconds: number): Promise<void> {
    await this.db.rows(sql`
      update account_erasures set last_error = ${error.slice(0, 500)}, claimed_until = now() + make_interval(secs => ${retryInSeconds})
      where user_id = ${userId} and claimed_by = ${worker}`);
  }

  async find(userId: string): Promise<{ steps_done: string[]; finished_at: Date | null; due_by: Date } | undefined> {
    const [row] = await this.db.rows<{ steps_done: string[]; finished_at: Date | null; due_by: Date }>(sql`
      select steps_done, finished_at, due_by from account_erasures where user_id = ${userId}`);
    return row;
  }
}
