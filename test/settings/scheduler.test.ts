// The cron scheduler on a real server's database: bookkeeping, catch-up of missed ticks, the
// overlap guard, one runner across nodes (the advisory lock), failures, and stop() waiting.
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import cron from 'node-cron';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { missedTick, runJobNow, startScheduler } from '../../jobs/scheduler.js';
import { jobLockKey } from '../../src/scheduling/job-runs.js';
import type { ScheduledJob } from '../../jobs/scheduled-job.js';
import { scheduledJobs } from '../../jobs/scheduled-jobs.js';

const booted = useTestServer({ SCHEDULER_ENABLED: 'false' });
let server: TestServer;

beforeAll(() => {
  server = booted.current;
});

const app = () => server.service.app;
/** The running node as the scheduler takes it (its context and services). */
const node = () => server.service;
const rows = <T>(q: ReturnType<typeof sql>) => app().database.rows<T>(q);

/** A job whose runs are recorded and which can be held open until released. */
function testJob(name: string, cronExpression = '0 3 * * *') {
  const runs: Date[] = [];
  let release: () => void = () => undefined;
  let gate: Promise<void> | null = null;
  let finished = 0;
  const job: ScheduledJob = {
    name,
    cron: cronExpression,
    uses: [],
    run: async (_app, now) => {
      runs.push(now);
      if (gate) await gate;
      finished++;
    },
  };
  return {
    job,
    runs,
    finished: () => finished,
    hold: () => {
      gate = new Promise<void>((r) => (release = r));
    },
    release: () => release(),
  };
}

const nextTurn = () => new Promise((r) => setImmediate(r));

describe('runJobNow', () => {
  it('should fail with a throwing job: recorded as failed, its last success kept', async () => {
    const job: ScheduledJob = {
      name: 'failing-job',
      cron: '* * * * *',
      uses: [],
      run: async () => {
        throw new Error('boom');
      },
    };
    expect(await runJobNow(node(), job)).toBe('failed');
    const [row] = await rows<{ last_success_at: Date | null; last_error: string; last_failure_at: Date | null }>(sql`
      select last_success_at, last_error, last_failure_at from scheduled_job_runs where job_name = 'failing-job'`);
    expect(row.last_success_at).toBeNull();
    expect(row.last_error).toBe('boom');
    expect(row.last_failure_at).not.toBeNull();
  });

  it('runs the job and records its start and success', async () => {
    const t = testJob('record-me');
    const now = new Date();
    expect(await runJobNow(node(), t.job, now)).toBe('ran');
    expect(t.runs).toEqual([now]);
    const [row] = await rows<{ last_success_at: Date; last_started_at: Date; runs: number; last_error: string | null }>(sql`
      select last_success_at, last_started_at, runs, last_error from scheduled_job_runs where job_name = 'record-me'`);
    expect(new Date(row.last_success_at).getTime()).toBe(now.getTime());
    expect(row.runs).toBe(1);
    expect(row.last_error).toBeNull();
  });

  it('overlap guard: the same job is not started twice on a node', async () => {
    const t = testJob('slow-job');
    t.hold();
    const first = runJobNow(node(), t.job);
    while (t.runs.length === 0) await nextTurn();
    expect(await runJobNow(node(), t.job)).toBe('skipped_overlap');
    t.release();
    expect(await first).toBe('ran');
    expect(t.runs).toHaveLength(1);
  });

  it("one node per tick: while another holder has the job's advisory lock the tick is skipped", async () => {
    const t = testJob('locked-job');
    const outcome = await app().database.tryWithAdvisoryLock(jobLockKey('locked-job'), () => runJobNow(node(), t.job));
    expect(outcome).toBe('skipped_other_node');
    expect(t.runs).toHaveLength(0);
    expect(await runJobNow(node(), t.job)).toBe('ran');
  });

  it('a tick another node already completed is skipped', async () => {
    const t = testJob('done-elsewhere');
    const tick = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    await rows(sql`insert into scheduled_job_runs (job_name, last_success_at, runs) values ('done-elsewhere', ${tick.toISOString()}::timestamptz, 1)`);
    expect(await runJobNow(node(), t.job, new Date(), tick)).toBe('skipped_done');
    expect(t.runs).toHaveLength(0);
  });

  it('distinct jobs get distinct lock keys', () => {
    const keys = new Set(scheduledJobs.map((j) => jobLockKey(j.name)));
    expect(keys.size).toBe(scheduledJobs.length);
  });
});

describe('catch-up after a restart', () => {
  it('should fail with a job of an invalid cron expression', () => {
    expect(() => startScheduler(node(), [{ name: 'bad', cron: 'every day', uses: [], run: async () => undefined }])).toThrow(/invalid cron/);
  });

  it('missedTick: true when the cron fired since the last success (or it never succeeded)', async () => {
    const task = cron.createTask('0 3 * * *', () => undefined, { timezone: 'Etc/UTC' });
    const now = new Date('2024-05-10T10:00:00Z');
    expect(missedTick(task, null, now)).toBe(true);
    expect(missedTick(task, new Date('2024-05-10T02:59:00Z'), now)).toBe(true);
    expect(missedTick(task, new Date('2024-05-10T03:00:00Z'), now)).toBe(false);
    expect(missedTick(task, new Date('2024-05-09T09:00:00Z'), new Date('2024-05-10T02:00:00Z'))).toBe(false);
    expect(missedTick(task, new Date('2024-01-01T00:00:00Z'), now)).toBe(true);
    await task.destroy();
  });

  it('a job whose tick was missed runs at start; one that is up to date does not', async () => {
    const missed = testJob('missed-daily');
    const upToDate = testJob('fresh-daily');
    await rows(sql`insert into scheduled_job_runs (job_name, last_success_at) values
      ('missed-daily', now() - interval '2 days'), ('fresh-daily', now())`);
    const startedAt = Date.now();
    const scheduler = startScheduler(node(), [missed.job, upToDate.job]);
    await scheduler.caughtUp;
    await scheduler.stop(10_000);
    expect(missed.runs).toHaveLength(1);
    expect(missed.runs[0].getTime()).toBeGreaterThanOrEqual(startedAt);
    expect(missed.finished()).toBe(1);
    expect(upToDate.runs).toHaveLength(0);
    const [row] = await rows<{ recent: boolean }>(sql`
      select last_success_at > now() - interval '1 day' as recent from scheduled_job_runs where job_name = 'missed-daily'`);
    expect(row.recent).toBe(true);
  });

  it('stop() waits for a tick in progress', async () => {
    const t = testJob('never-ran-slow');
    t.hold();
    const scheduler = startScheduler(node(), [t.job]);
    await scheduler.caughtUp;
    while (t.runs.length === 0) await nextTurn();
    let stopped = false;
    const stopping = scheduler.stop(10_000).then(() => (stopped = true));
    for (let i = 0; i < 5; i++) await nextTurn();
    expect(stopped).toBe(false);
    expect(t.finished()).toBe(0);
    t.release();
    await stopping;
    expect(t.finished()).toBe(1);
  });
});

describe('a node started with the scheduler on', () => {
  const scheduledNode = useTestServer();

  it('runs every registered job that never ran', async () => {
    const scheduledServer = scheduledNode.current;
    const names = scheduledJobs.map((j) => j.name).sort();
    let seen: string[] = [];
    for (let i = 0; i < 600 && seen.length < names.length; i++) {
      seen = (
        await scheduledServer.service.app.database.rows<{ job_name: string }>(sql`
        select job_name from scheduled_job_runs where last_success_at is not null order by job_name`)
      ).map((r) => r.job_name);
      if (seen.length < names.length) await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen).toEqual(names);
  });
});
