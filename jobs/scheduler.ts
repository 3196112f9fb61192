// The cron scheduler (node-cron). For each tick of each job:
// - overlap guard: a job still running on this node is not started again;
// - one node only: the tick runs under a PostgreSQL advisory lock per job, and a tick another
//   node already completed (clocks differ a little) is skipped;
// - bookkeeping: scheduled_job_runs keeps each job's last start, success and failure;
// - catch-up: at start, a job whose cron fired since its last success while no node ran
//   (or that never ran) runs at once; jobs process everything due up to the time they are given.
// - a few at once: each run holds a database connection for its lock while its own queries need
//   others, so every job at once (the catch-up after a stop of more than a day starts them all)
//   could take every connection of the pool and wait forever for one more. At most a third of the
//   pool's connections are held by job locks; the other runs wait their turn.
// stop() stops the crons and waits for the ticks in progress.
import cron, { type ScheduledTask } from 'node-cron';
import type { AppContext } from '../src/context.js';
import type { JobNode, ScheduledJob } from './scheduled-job.js';
import { scheduledJobs } from './scheduled-jobs.js';
import { pick } from '../src/shared/pick.js';

export interface Scheduler {
  /** Settles once the start-up catch-up has decided which jobs to run (and started them). */
  caughtUp: Promise<void>;
  /** Stops the crons; waits up to `timeoutMs` for the runs in progress (a run left then finishes or fails on its own; its job catches up at the next start). */
  stop(timeoutMs: number): Promise<void>;
}

export type JobOutcome = 'ran' | 'failed' | 'skipped_overlap' | 'skipped_other_node' | 'skipped_done';

const TIMEZONE = 'Etc/UTC';
/** How far back the start-up check looks for a missed tick; an older last success counts as missed. */
const CATCH_UP_LOOKBACK_MINUTES = 7 * 24 * 60;
const MINUTE_MS = 60_000;

/** Jobs running on this node, per application (tests run several nodes in one process). */
const runningJobs = new WeakMap<AppContext, Map<string, Promise<JobOutcome>>>();

/**
 * Runs `job` now on this node, with the overlap guard, the cross-node lock and the bookkeeping.
 * `scheduledAt` (a cron tick) makes it skip a tick that was already completed elsewhere; without
 * it the job runs regardless (tests, catch-up).
 */
export async function runJobNow(node: JobNode, job: ScheduledJob, now = new Date(), scheduledAt?: Date): Promise<JobOutcome> {
  const { app, services } = node;
  let mine = runningJobs.get(app);
  if (!mine) runningJobs.set(app, (mine = new Map<string, Promise<JobOutcome>>()));
  if (mine.has(job.name)) return 'skipped_overlap';
  const run = (async (): Promise<JobOutcome> =>
    (await services.jobRuns.whileHoldingLock(job.name, () => runLocked(node, job, now, scheduledAt))) ?? 'skipped_other_node')();
  mine.set(job.name, run);
  try {
    return await run;
  } finally {
    mine.delete(job.name);
  }
}

async function runLocked(node: JobNode, job: ScheduledJob, now: Date, scheduledAt?: Date): Promise<JobOutcome> {
  const runs = node.services.jobRuns;
  if (scheduledAt && (await runs.succeededSince(job.name, scheduledAt))) return 'skipped_done';
  await runs.recordStart(job.name);
  try {
    await job.run({ app: node.app, services: pick(node.services, job.uses) }, now);
  } catch (err) {
    node.app.log.error({ err, job: job.name }, 'scheduled job failed');
    await runs.recordFailure(job.name, err instanceof Error ? err.message : String(err)).catch(() => undefined);
    return 'failed';
  }
  await runs.recordSuccess(job.name, now);
  return 'ran';
}

/** True when the cron fired after `lastSuccess` (exclusive) and up to `now`, or the job never succeeded. */
export function missedTick(task: Pick<ScheduledTask, 'match'>, lastSuccess: Date | null, now: Date): boolean {
  if (!lastSuccess) return true;
  let minute = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS;
  for (let i = 0; i < CATCH_UP_LOOKBACK_MINUTES; i++, minute -= MINUTE_MS) {
    if (minute <= lastSuccess.getTime()) return false;
    if (task.match(new Date(minute))) return true;
  }
  return true;
}

/** Runs the work given to it, at most `max` at a time, the others in the order they came. */
function limited(max: number): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    // A finished run hands its place to the first waiter (running stays counted), so no newcomer slips in between.
    if (running < max) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

export function startScheduler(node: JobNode, jobs: ScheduledJob[] = scheduledJobs): Scheduler {
  const { app } = node;
  const inTurn = limited(Math.max(1, Math.floor(app.config.DATABASE_POOL_SIZE / 3)));
  for (const job of jobs) {
    if (!cron.validate(job.cron)) throw new Error(`scheduled job ${job.name} has an invalid cron expression: ${job.cron}`);
  }
  const inFlight = new Set<Promise<unknown>>();
  let stopped = false;
  const start = (job: ScheduledJob, now: Date, scheduledAt?: Date) => {
    if (stopped) return;
    // A run still waiting for its turn when the node stops is dropped: the next start catches it up.
    const p = inTurn(async () => (stopped ? 'skipped_overlap' : runJobNow(node, job, now, scheduledAt))).catch((err) =>
      app.log.error({ err, job: job.name }, 'scheduled tick failed'),
    );
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };

  const tasks = jobs.map((job) =>
    cron.schedule(
      job.cron,
      (ctx) => {
        const scheduledAt = new Date(Math.floor(ctx.date.getTime() / MINUTE_MS) * MINUTE_MS);
        start(job, new Date(), scheduledAt);
      },
      { timezone: TIMEZONE, name: `job:${job.name}` },
    ),
  );

  // Catch up on ticks missed while no node was running.
  const catchUp = (async () => {
    const lastSuccess = await node.services.jobRuns.lastSuccesses();
    const now = new Date();
    jobs.forEach((job, i) => {
      if (missedTick(tasks[i], lastSuccess.get(job.name) ?? null, now)) {
        app.log.info({ job: job.name }, 'running a missed scheduled job');
        start(job, now);
      }
    });
  })().catch((err) => app.log.error({ err }, 'scheduler catch-up failed'));
  inFlight.add(catchUp);
  void catchUp.finally(() => inFlight.delete(catchUp));

  return {
    caughtUp: catchUp,
    stop: async (timeoutMs) => {
      stopped = true;
      await Promise.all(tasks.map(async (t) => t.destroy()));
      // Bounded: a run that does not end (seen: a media-removal sweep under heavy load) must not keep
      // the node from stopping; what it did is committed, what it did not do is done at the next start.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
      const settled = (async () => {
        while (inFlight.size) await Promise.allSettled([...inFlight]);
      })();
      await Promise.race([settled, late]);
      clearTimeout(timer);
      if (inFlight.size) app.log.warn({ running: inFlight.size }, 'scheduled jobs still running at stop; left to finish or fail');
    },
  };
}
