// The durable queue of video-processing jobs (table video_jobs). Any worker on any node claims the
// oldest runnable job with FOR UPDATE SKIP LOCKED: a queued job whose time has come, or a running
// job whose lease ran out (its worker died). The claim is held by extending the lease (heartbeat);
// every write after the claim is guarded by `locked_by`, so a worker that lost its claim changes
// nothing.
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from '../db/client.js';
import { newId } from '../shared/ids.js';

export type VideoJobStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface ClaimedJob {
  id: string;
  contentId: string;
  inputPath: string;
  attempts: number;
  maxAttempts: number;
}

export interface VideoJobRow {
  id: string;
  content_id: string;
  status: VideoJobStatus;
  attempts: number;
  locked_by: string | null;
  last_error: string | null;
}

type Executor = { execute: (q: ReturnType<typeof sql>) => Promise<unknown> };
const rowsOf = async <T>(ex: Executor, q: ReturnType<typeof sql>): Promise<T[]> => ((await ex.execute(q)) as { rows: T[] }).rows;

export class VideoJobs {
  constructor(private readonly database: DatabaseHandle) {}

  /**
   * Queues a job for a content item inside the caller's transaction. A live job of the same item
   * (queued or running) is replaced: the new upload supersedes the file it was working on.
   */
  async enqueue(tx: Executor, contentId: string, inputPath: string): Promise<string> {
    const id = newId();
    await tx.execute(sql`
      update video_jobs set status = 'failed', last_error = 'superseded by a new upload', locked_by = null,
        lease_until = null, finished_at = now(), updated_at = now()
      where content_id = ${contentId} and status in ('queued', 'running')`);
    await tx.execute(sql`insert into video_jobs (id, content_id, input_path) values (${id}, ${contentId}, ${inputPath})`);
    return id;
  }

  async claim(workerId: string, leaseSeconds: number): Promise<ClaimedJob | null> {
    const rows = await this.database.rows<{ id: string; content_id: string; input_path: string; attempts: number; max_attempts: number }>(sql`
      update video_jobs set
        status = 'running', locked_by = ${workerId},
        lease_until = now() + make_interval(secs => ${leaseSeconds}), heartbeat_at = now(),
        attempts = attempts + 1, started_at = coalesce(started_at, now()), updated_at = now()
      where id = (
        select id from video_jobs
        where (status = 'queued' and run_after <= now()) or (status = 'running' and lease_until < now())
        order by run_after, created_at
        for update skip locked
        limit 1
      )
      returning id, content_id, input_path, attempts, max_attempts`);
    const r = rows[0];
    return r ? { id: r.id, contentId: r.content_id, inputPath: r.input_path, attempts: Number(r.attempts), maxAttempts: Number(r.max_attempts) } : null;
  }

  /** Extends the lease; false when the claim was lost (another worker took the job, or it was superseded). */
  async heartbeat(jobId: string, workerId: string, leaseSeconds: number): Promise<boolean> {
    const rows = await this.database.rows(sql`
      update video_jobs set lease_until = now() + make_interval(secs => ${leaseSeconds}), heartbeat_at = now(), updated_at = now()
      where id = ${jobId} and locked_by = ${workerId} and status = 'running'
      returning id`);
    return rows.length === 1;
  }

  /** Marks the job done inside the caller's transaction; false when the claim was lost. */
  async finish(tx: Executor, jobId: string, workerId: string, outcome: { status: 'completed' } | { status: 'failed'; error: string }): Promise<boolean> {
    const error = outcome.status === 'failed' ? outcome.error : null;
    const rows = await rowsOf(tx, sql`
      update video_jobs set status = ${outcome.status}, last_error = ${error}, locked_by = null, lease_until = null,
        finished_at = now(), updated_at = now()
      where id = ${jobId} and locked_by = ${workerId} and status = 'running'
      returning id`);
    return rows.length === 1;
  }

  /** Puts the job back in the queue after a transient failure, to run again after `delaySeconds`. */
  async retryLater(jobId: string, workerId: string, error: string, delaySeconds: number): Promise<void> {
    await this.database.rows(sql`
      update video_jobs set status = 'queued', last_error = ${error}, locked_by = null, lease_until = null,
        run_after = now() + make_interval(secs => ${delaySeconds}), updated_at = now()
      where id = ${jobId} and locked_by = ${workerId} and status = 'running'`);
  }

  /** A clean stop gives the job back at once (and does not count the interrupted attempt). */
  async release(jobId: string, workerId: string): Promise<void> {
    await this.database.rows(sql`
      update video_jobs set status = 'queued', locked_by = null, lease_until = null, attempts = greatest(attempts - 1, 0),
        run_after = now(), updated_at = now()
      where id = ${jobId} and locked_by = ${workerId} and status = 'running'`);
  }

  async latestForContent(contentId: string): Promise<VideoJobRow | null> {
    const rows = await this.database.rows<VideoJobRow>(sql`
      select id, content_id, status, attempts, locked_by, last_error from video_jobs
      where content_id = ${contentId} order by created_at desc limit 1`);
    return rows[0] ?? null;
  }
}
