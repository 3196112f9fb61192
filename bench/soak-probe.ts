// Preloaded into the service process by bench/soak.ts (`--import ./bench/soak-probe.ts`), so the
// service itself needs no metrics endpoint for the soak: every SOAK_SAMPLE_MS it sends the parent
// its memory, event-loop delay and number of active handles over the IPC channel. On
// `{type: 'soak:minute'}` it answers the event-loop delay p99 since the previous such request (or
// since `soak:start`), on `soak:overall` the p99 since `soak:start`.
// Does nothing when the process has no IPC channel.
import { monitorEventLoopDelay } from 'node:perf_hooks';

if (process.send) {
  const sampleMs = Number(process.env.SOAK_SAMPLE_MS ?? 5000);
  const sinceSample = monitorEventLoopDelay({ resolution: 10 });
  const sinceMinute = monitorEventLoopDelay({ resolution: 10 });
  const overall = monitorEventLoopDelay({ resolution: 10 });
  sinceSample.enable();
  sinceMinute.enable();
  overall.enable();
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;

  const handleTypes = (): Record<string, number> => {
    const counts: Record<string, number> = {};
    for (const t of process.getActiveResourcesInfo()) counts[t] = (counts[t] ?? 0) + 1;
    return counts;
  };

  const timer = setInterval(() => {
    const m = process.memoryUsage();
    const types = handleTypes();
    process.send?.({
      type: 'soak:sample',
      at: Date.now(),
      rss: m.rss,
      heapUsed: m.heapUsed,
      heapTotal: m.heapTotal,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      loopDelayP99Ms: ms(sinceSample.percentile(99)),
      handles: Object.values(types).reduce((s, n) => s + n, 0),
      handleTypes: types,
    });
    sinceSample.reset();
  }, sampleMs);
  timer.unref();

  process.on('message', (msg: { type?: string }) => {
    if (msg?.type === 'soak:start') {
      sinceMinute.reset();
      overall.reset();
      process.send?.({ type: 'soak:start' });
    } else if (msg?.type === 'soak:minute') {
      process.send?.({ type: 'soak:minute', loopDelayP99Ms: ms(sinceMinute.percentile(99)), loopDelayMaxMs: ms(sinceMinute.max) });
      sinceMinute.reset();
    } else if (msg?.type === 'soak:overall') {
      process.send?.({ type: 'soak:overall', loopDelayP99Ms: ms(overall.percentile(99)), loopDelayMaxMs: ms(overall.max) });
    }
  });
  // The channel must not keep a service alive that is otherwise done.
  process.channel?.unref();
}
