// scheduled_job_runs: each scheduled job's last start, success and failure, which the scheduler
// reads to skip a tick another node completed and to catch up on ticks missed while no node ran.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';

interface JobRunRow {
  job_name: string;
  last_success_at: Date | null;
}

export class JobRunRepository extends Repository {
  async lastSuccesses(): Promise<JobRunRow[]> {
    return this.db.rows<JobRunRow>(sql`select job_name, last_success_at from scheduled_job_runs`);
  }

  /** True when the job's last success covers `tick` (another node ran it already). */
  async succeededSince(jobName: string, tick: Date): Promise<boolean> {
    const [row] = await this.db.rows<{ done: boolean }>(sql`
      select last_success_at >= ${tick.toISOString()}::timestamptz as done from scheduled_job_runs where job_name = ${jobName}`);
    return row?.done ?? false;
  }

  async recordStart(jobName: string): Promise<void> {
    await this.db.rows(sql`
      insert into scheduled_job_runs (job_name, last_started_at, runs) values (${jobName}, now(), 1)
      on conflict (job_name) do update set last_started_at = now(), runs = scheduled_job_runs.runs + 1`);
  }

  async recordFailure(jobName: string, reason: string): Promise<void> {
    await this.db.rows(sql`update scheduled_job_runs set last_failure_at = now(), last_error = ${reason.slice(0, 500)} where job_name = ${jobName}`);
  }

  /** `processedUpTo`: the time the job was asked to process up to, which the next catch-up check compares with. */
  async recordSuccess(jobName: string, processedUpTo: Date): Promise<void> {
    await this.db.rows(sql`
      update scheduled_job_runs set last_success_at = ${processedUpTo.toISOString()}::timestamptz, last_error = null where job_name = ${jobName}`);
  }
}
