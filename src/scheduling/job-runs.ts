// What the cron scheduler (jobs/scheduler.ts) keeps in the database: one runner per job across
// nodes (a PostgreSQL advisory lock per job name) and each job's bookkeeping in
// scheduled_job_runs (last start, success and failure), read to skip a tick another node
// completed and to catch up on ticks missed while no node ran.
import type { DatabaseHandle } from '../db/client.js';
import type { JobRunRepository } from './job-run-repository.js';

/** A stable advisory-lock key per job name (FNV-1a), away from the start-up lock's key. */
export function jobLockKey(name: string): number {
  let hash = 0x811c9dc5;
  for (const ch of Buffer.from(name, 'utf8')) hash = Math.imul(hash ^ ch, 0x01000193) >>> 0;
  return 7_200_000 + (hash % 100_000);
}

export class ScheduledJobRuns {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly runs: JobRunRepository,
  ) {}

  /** Runs `fn` while this node holds the job's lock; undefined (without running it) when another node does. */
  whileHoldingLock<T>(jobName: string, fn: () => Promise<T>): Promise<T | undefined> {
    return this.database.tryWithAdvisoryLock(jobLockKey(jobName), fn);
  }

  /** Each job's last success (null: it never succeeded), by job name. */
  async lastSuccesses(): Promise<Map<string, Date | null>> {
    return new Map((await this.runs.lastSuccesses()).map((r) => [r.job_name, r.last_success_at]));
  }

  /** True when the job's last success covers `tick` (another node ran it already). */
  succeededSince(jobName: string, tick: Date): Promise<boolean> {
    return this.runs.succeededSince(jobName, tick);
  }

  recordStart(jobName: string): Promise<void> {
    return this.runs.recordStart(jobName);
  }

  recordFailure(jobName: string, reason: string): Promise<void> {
    return this.runs.recordFailure(jobName, reason);
  }

  /** `processedUpTo`: the time the job was asked to process up to, which the next catch-up check compares with. */
  recordSuccess(jobName: string, processedUpTo: Date): Promise<void> {
    return this.runs.recordSuccess(jobName, processedUpTo);
  }
}
