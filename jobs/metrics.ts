// Video-processing metrics: the queue as every node sees it (read from video_jobs at each scrape),
// how long this node's attempts run and how they end, and the outcomes this node reported
// (the same domain events the /processing namespace pushes).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';
import type { VideoRunObserver } from './video-worker.js';

/** Processing runs take seconds to the 30-minute limit (VIDEO_JOB_TIMEOUT_SECONDS). */
const RUN_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

export interface JobMetrics {
  observeVideoRun: VideoRunObserver;
  stop(): void;
}

export function jobMetrics(registry: Registry, app: AppContext, services: Pick<Services, 'videoJobs'>): JobMetrics {
  const registers = [registry];
  new Gauge({
    name: 'video_jobs',
    help: 'Video jobs in the queue across all nodes, by state: queued, running, stalled (running, lease ran out)',
    labelNames: ['state'],
    registers,
    async collect() {
      try {
        const counts = await services.videoJobs.countLive();
        for (const [state, count] of Object.entries(counts)) this.set({ state }, count);
      } catch {
        // The database is away: db_query_errors_total says so; the gauge keeps its last values.
      }
    },
  });
  const runs = new Histogram({
    name: 'video_job_run_duration_seconds',
    help: 'Duration of the processing attempts run on this node, by how they ended (processed, released, abandoned, crashed)',
    labelNames: ['outcome'],
    buckets: RUN_BUCKETS,
    registers,
  });
  const finished = new Counter({
    name: 'video_jobs_finished_total',
    help: 'Videos this node finished processing, by result (completed, failed)',
    labelNames: ['result'],
    registers,
  });
  const stops = [
    app.events.handle('video.completed', 'job-metrics', () => finished.inc({ result: 'completed' })),
    app.events.handle('video.failed', 'job-metrics', () => finished.inc({ result: 'failed' })),
  ];
  return {
    observeVideoRun: (seconds, outcome) => runs.observe({ outcome }, seconds),
    stop: () => stops.forEach((stop) => stop()),
  };
}
