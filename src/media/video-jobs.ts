// The durable queue of video-processing jobs, as the workers (jobs/video-worker.ts) use it. Any
// worker on any node claims the oldest runnable job with FOR UPDATE SKIP LOCKED: a queued job whose
// time has come, or a running job whose lease ran out (its worker died). The claim is held by
// extending the lease (heartbeat). Jobs are queued by uploads (upload-service.ts) and finished by
// the processor (video-processor.ts), each inside its own transaction.
import type { Queryable } from '../db/client.js';
import { VideoJobRepository, type ClaimedJob } from './video-job-repository.js';

export class VideoJobs {
  private readonly jobs: VideoJobRepository;

  constructor(database: Queryable) {
    this.jobs = new VideoJobRepository(database);
  }

  claim(workerId: string, leaseSeconds: number): Promise<ClaimedJob | null> {
    return this.jobs.claim(workerId, leaseSeconds);
  }

  /** Extends the lease; false when the claim was lost (another worker took the job, or it was superseded). */
  heartbeat(jobId: string, workerId: string, leaseSeconds: number): Promise<boolean> {
    return this.jobs.extendLease(jobId, workerId, leaseSeconds);
  }

  /** Puts the job back in the queue after a transient failure, to run again after `delaySeconds`. */
  retryLater(jobId: string, workerId: string, error: string, delaySeconds: number): Promise<void> {
    return this.jobs.requeue(jobId, workerId, error, delaySeconds);
  }

  /** A clean stop gives the job back at once (and does not count the interrupted attempt). */
  release(jobId: string, workerId: string): Promise<void> {
    return this.jobs.release(jobId, workerId);
  }
}
