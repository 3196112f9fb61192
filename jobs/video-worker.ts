// Durable video-processing workers: VIDEO_WORKERS loops per node, each claiming one job at a time
// from video_jobs (src/media/video-job-queue.ts), polling about once a second and woken at once
// when a job is queued on this node. While a job runs its lease is extended every third of
// JOB_LEASE_SECONDS; a lost claim aborts the work. stop(timeout) stops claiming, waits for running
// jobs up to the timeout, then kills their ffmpeg and gives the jobs back to the queue so a
// restarted node takes them up at once. A node that dies without stopping leaves its jobs with a
// lease that runs out, after which any node takes them up again.
// The processor ends an attempt at VIDEO_JOB_TIMEOUT_SECONDS; as a backstop (a run stuck outside
// ffmpeg) the heartbeat stops renewing the lease one lease later and aborts the work, so the job
// goes back to the queue for another node even if this attempt never returns.
import os from 'node:os';
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';
import { randomToken } from '../src/shared/ids.js';
import type { ClaimedJob } from '../src/media/index.js';
import { ProcessingAbortedError } from '../src/media/index.js';

export interface VideoWorkers {
  stop(timeoutMs: number): Promise<void>;
}

/**
 * How one processing attempt ended on this node: `processed` (the processor finished it, completed
 * or failed), `released` (given back on stop), `abandoned` (claim lost or past its time limit),
 * `crashed` (an unexpected error; the job is queued again).
 */
export type VideoRunOutcome = 'processed' | 'released' | 'abandoned' | 'crashed';

/** Told about every attempt (metrics): how long it ran and how it ended. */
export type VideoRunObserver = (seconds: number, outcome: VideoRunOutcome) => void;

const POLL_MS = 1000;
const IDLE_ERROR_BACKOFF_MS = 2000;

interface RunningJob {
  job: ClaimedJob;
  controller: AbortController;
  stopping: boolean;
}

export function startVideoWorkers(
  app: AppContext,
  services: Pick<Services, 'videoJobs' | 'videoProcessor' | 'videoWakeUp'>,
  observeRun?: VideoRunObserver,
): VideoWorkers {
  const count = app.config.VIDEO_WORKERS;
  if (count === 0) return { stop: async () => undefined };
  const { log } = app;
  const leaseSeconds = app.config.JOB_LEASE_SECONDS;
  const { videoJobs: jobs, videoProcessor: processor } = services;
  const nodeTag = `${os.hostname()}:${process.pid}:${randomToken(4)}`;
  const running = new Map<string, RunningJob>();
  const sleepers = new Set<() => void>();
  let stopping = false;

  const wakeAll = () => {
    for (const wake of [...sleepers]) wake();
  };
  const unsubscribe = services.videoWakeUp.onPoke(wakeAll);

  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      sleepers.add(done);
    });

  const runJob = async (workerId: string, job: ClaimedJob) => {
    const controller = new AbortController();
    const entry: RunningJob = { job, controller, stopping: false };
    running.set(workerId, entry);
    const giveUpAt = Date.now() + (app.config.VIDEO_JOB_TIMEOUT_SECONDS + leaseSeconds) * 1000;
    const heartbeat = async () => {
      if (Date.now() > giveUpAt) {
        if (!controller.signal.aborted) {
          log.warn({ jobId: job.id, workerId }, 'video job ran past its time limit; no longer renewing its lease');
          controller.abort();
        }
        clearInterval(timer);
        return false;
      }
      try {
        if (!(await jobs.extendLease(job.id, workerId, leaseSeconds))) {
          log.warn({ jobId: job.id, workerId }, 'video job claim lost; abandoning it');
          controller.abort();
          return false;
        }
        return true;
      } catch (err) {
        log.warn({ err, jobId: job.id }, 'video job heartbeat failed');
        return true;
      }
    };
    const timer = setInterval(() => void heartbeat(), Math.max(250, (leaseSeconds * 1000) / 3));
    const started = process.hrtime.bigint();
    let outcome: VideoRunOutcome = 'processed';
    try {
      await processor.process({ job, workerId, signal: controller.signal, stillOwned: heartbeat });
    } catch (err) {
      if (err instanceof ProcessingAbortedError) {
        outcome = entry.stopping ? 'released' : 'abandoned';
        if (entry.stopping) {
          await jobs.release(job.id, workerId).catch((e) => log.warn({ err: e, jobId: job.id }, 'could not release video job'));
          log.info({ jobId: job.id }, 'video job released on stop');
        }
      } else {
        outcome = 'crashed';
        log.error({ err, jobId: job.id }, 'video job crashed');
        await jobs.requeue(job.id, workerId, (err as Error).message.slice(0, 500), 10).catch(() => undefined);
      }
    } finally {
      clearInterval(timer);
      running.delete(workerId);
      observeRun?.(Number(process.hrtime.bigint() - started) / 1e9, outcome);
    }
  };

  const loop = async (workerId: string) => {
    while (!stopping) {
      let job: ClaimedJob | null;
      try {
        job = await jobs.claim(workerId, leaseSeconds);
      } catch (err) {
        if (stopping) break;
        log.warn({ err, workerId }, 'video job claim failed');
        await nap(IDLE_ERROR_BACKOFF_MS);
        continue;
      }
      if (!job) {
        await nap(POLL_MS);
        continue;
      }
      log.info({ jobId: job.id, contentId: job.contentId, attempt: job.attempts, workerId }, 'video job claimed');
      await runJob(workerId, job);
    }
  };

  const loops = Array.from({ length: count }, (_, i) => loop(`${nodeTag}#${i}`));
  log.info({ workers: count, leaseSeconds }, 'video workers started');

  return {
    stop: async (timeoutMs) => {
      stopping = true;
      unsubscribe();
      wakeAll();
      const all = Promise.all(loops);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        all.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), timeoutMs);
        }),
      ]);
      clearTimeout(timer);
      if (timedOut) {
        for (const entry of running.values()) {
          entry.stopping = true;
          entry.controller.abort();
        }
        await all;
      }
    },
  };
}
