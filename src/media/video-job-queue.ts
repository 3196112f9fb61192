// The video-job queue as the workers of jobs/video-worker.ts see it: claim the oldest runnable job
// with a lease, keep the lease, give a job back, queue it again after a crash, count what waits.
// The door calls this service, never the repository; the rules of each step (the lease, the
// `locked_by` guard) are in VideoJobRepository's SQL, where they hold across nodes.
import type { ClaimedJob, VideoJobRepository } from './video-job-repository.js';

export class VideoJobQueue {
  constructor(private readonly jobs: VideoJobRepository) {}

  /** The oldest runnable job, now claimed by `workerId` for `leaseSeconds`; null when none waits. */
  claim(workerId: string, leaseSeconds: number): Promise<ClaimedJob | null> {
    return this.jobs.claim(workerId, leaseSeconds);
  }

  /** Keeps the claim; false when it was lost (another worker took the job, or it was superseded). */
  extendLease(jobId: string, workerId: string, leaseSeconds: number): Promise<boolean> {
    return this.jobs.extendLease(jobId, workerId, leaseSeconds);
  }

  /** Gives a claimed job back at once, without counting the attempt (a clean stop). */
  release(jobId: string, workerId: string): Promise<void> {
    return this.jobs.release(jobId, workerId);
  }

  /** Queues a claimed job again after `delaySeconds` (its run crashed). */
  requeue(jobId: string, workerId: string, error: string, delaySeconds: number): Promise<void> {
    return this.jobs.requeue(jobId, workerId, error, delaySeconds);
  }

  /** Jobs queued, running and stalled across all nodes (metrics). */
  countLive(): Promise<{ queued: number; running: number; stalled: number }> {
    return this.jobs.countLive();
  }
}
