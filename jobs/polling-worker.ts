// A node's loop for durable work kept as claimed rows (account erasures, data exports): a round
// every few seconds and at once when this node is told of new work (a poke); one round at a time
// (a poke during a round asks for another right after it); a round that fails is logged and the
// next one retries. Stopping waits for the round in progress, bounded.
import type { AppContext } from '../src/context.js';

const POLL_MS = 5_000;

export interface PollingWorker {
  stop(timeoutMs: number): Promise<void>;
}

export interface PollingWorkerSpec {
  /** What the rounds do, for the log ("account erasure"). */
  name: string;
  /** One round: runs what is due; `stopping` tells it to let go between items. */
  round: (stopping: () => boolean) => Promise<unknown>;
  /** Registers the poke that asks for a round now. */
  onPoke: (poke: () => void) => void;
  /** Housekeeping beside the rounds, each on its own interval (errors logged). */
  every?: { ms: number; run: () => Promise<unknown>; name: string }[];
}

export function startPollingWorker(app: AppContext, spec: PollingWorkerSpec): PollingWorker {
  let stopping = false;
  let running: Promise<unknown> | null = null;
  let again = false;
  const round = () => {
    if (stopping) return;
    if (running) {
      again = true;
      return;
    }
    running = spec
      .round(() => stopping)
      .catch((err) => app.log.warn({ err: (err as Error).message }, `${spec.name} round failed; next round retries`))
      .finally(() => {
        running = null;
        if (again && !stopping) {
          again = false;
          round();
        }
      });
  };
  const housekeeping = (spec.every ?? []).map((task) =>
    setInterval(() => {
      if (stopping) return;
      void task.run().catch((err) => app.log.warn({ err: (err as Error).message }, `${task.name} failed; next round retries`));
    }, task.ms),
  );
  const timers = [setInterval(round, POLL_MS), ...housekeeping];
  for (const timer of timers) timer.unref();
  spec.onPoke(round);
  setImmediate(round);
  return {
    stop: async (timeoutMs) => {
      stopping = true;
      timers.forEach(clearInterval);
      let t: NodeJS.Timeout | undefined;
      if (running) await Promise.race([running, new Promise((r) => (t = setTimeout(r, timeoutMs)))]);
      clearTimeout(t);
    },
  };
}
