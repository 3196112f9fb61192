// The durable queue of video-processing jobs (video_jobs), as the workers (jobs/video-worker.ts)
// use it through VideoJobQueue (video-job-queue.ts). Any worker on any node claims the oldest runnable job with FOR UPDATE SKIP LOCKED: a
// queued job whose time has come, or a running job whose lease ran out (its worker died). The
// claim is held by extending the lease (heartbeat). Jobs are queued by uploads (upload-service.ts)
// and finished by the processor (video-processor.ts), each inside its own transaction.
// Every write after a claim is guarded by `locked_by`, so a worker that lost its claim changes
// nothing.
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';

export interface ClaimedJob {
  id: string;
  contentId: string;
  inputPath: string;
  attempts: number;
  maxAttempts: number;
}

interface ClaimedJobRow {
  id: string;
  content_id: string;
  input_path: string;
  attempts: number;
  max_attempts: number;
}

export class VideoJobRepository extends Repository {
  /** Fails the item's live (queued or running) job, if any: its worker sees the claim gone. */
  async failLiveJobs(contentId: string, reason: string): Promise<void> {
    await this.db.rows(sql`
      update video_jobs set status = 'failed', last_error = ${reason}, locked_by = null, lease_until = null,
        finished_at = now(), updated_at = now()
      where content_id = ${contentId} and status in ('queued', 'running')`);
  }

  async insert(id: string, contentId: string, inputPath: string): Promise<void> {
    await this.db.rows(sql`insert into video_jobs (id, content_id, input_path) values (${id}, ${contentId}, ${inputPath})`);
  }

  /** Claims the oldest runnable job: a queued one whose time has come, or a running one whose lease ran out. */
  async claim(workerId: string, leaseSeconds: number): Promise<ClaimedJob | null> {
    const [r] = await this.db.rows<ClaimedJobRow>(sql`
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
    return r ? { id: r.id, contentId: r.content_id, inputPath: r.input_path, attempts: r.attempts, maxAttempts: r.max_attempts } : null;
  }

  /** Extends the lease; false when the claim was lost (another worker took the job, or it was superseded). */
  async extendLease(jobId: string, workerId: string, leaseSeconds: number): Promise<boolean> {
    const rows = await this.db.rows(sql`
      update video_jobs set lease_until = now() + make_interval(secs => ${leaseSeconds}), heartbeat_at = now(), updated_at = now()
      where id = ${jobId} and locked_by = ${workerId} and status = 'running'
      returning id`);
    return rows.length === 1;
  }

  /** Marks a claimed job done; false when the claim was lost. */
  async finish(jobId: string, workerId: string, status: 'completed' | 'failed', error: string | null): Promise<boolean> {
    const rows = await this.db.rows(sql`
      update video_jobs set status = ${status}, last_error = ${error}, locked_by = null, lease_until = null,
        finished_at = now(), updated_at = now()
      where id = ${jobId} and locked_by = ${workerId} and status = 'running'
      returning id`);
    return rows.length === 1;
  }

  /** Queues a claimed job again, to run after delaySeconds. */
  async requeue(jobId: string, workerId: string, error: string, delaySeconds: number): Promise<void> {
    await this.db.rows(sql`
      update video_jobs set status = 'queued', last_error = ${error}, locked_by = null, lease_until = null,
        run_after = now() + make_interval(secs => ${delaySeconds}), updated_at = now()
      where id = ${jobId} and locked_by = ${workerId} and status = 'running'`);
  }

  /**
   * Gives the job back without counting the attempt (the media store could not be reached: the
   * video is not at fault, so waiting for the store must not use up its attempts).
   */
  async requeueUncounted(jobId: string, workerId: string, error: string, delaySeconds: number): Promise<void> {
    await this.db.rows(sql`
      update video_jobs set status = 'queued', attempts = greatest(0, attempts - 1), last_error = ${error}, locked_by = null,
        lease_until = null, run_after = now() + make_interval(secs => ${delaySeconds}), updated_at = now()
      where id = ${jobId} and locked_by = ${workerId} and status = 'running'`);
  }

  /**
   * Jobs waiting and being worked on, across all nodes (metrics). `stalled` are running jobs whose
   * lease ran out (their worker died; another node takes them up). Reads the live rows only (the
   * partial claim index), so it stays cheap however many finished jobs the table holds.
   */
  async countLive(): Promise<{ queued: number; running: number; stalled: number }> {
    const [row] = await this.db.rows<{ queued: number; running: number; stalled: number }>(sql`
      select count(*) filter (where status = 'queued')::int as queued,
             count(*) filter (where status = 'running' and lease_until >= now())::int as running,
             count(*) filter (where status = 'running' and lease_until < now())::int as stalled
      from video_jobs where status in ('queued', 'running')`);
    return row;
  }

  /** Queues a claimed job again at once, without counting the attempt it was on: a clean stop gives it back. */
  async release(jobId: string, workerId: string): Promise<void> {
    await this.db.rows(sql`
      update video_jobs set status = 'queued', locked_by = null, lease_until = null, attempts = greatest(attempts - 1, 0),
        run_after = now(), updated_at = now()
      where id = ${jobId} and locked_by = ${workerId} and status = 'running'`);
  }
}
