// One node's loop over work claimed from the database in batches (notifications to push, Web Push
// deliveries to send). Calls while a run is in progress share it and ask for one more pass, since
// what their caller just committed may have missed the run's last claim. After `stop()` no pass
// starts, and `stop()` waits for the one in progress, so nothing touches a closing database; what
// is left unclaimed is picked up later by any node.
export class ClaimRounds {
  private running: Promise<number> | null = null;
  private again = false;
  private stopped = false;

  /** `claimBatch` claims and handles one batch and answers its size; a batch under `batchSize` ends a pass. */
  constructor(
    private readonly claimBatch: () => Promise<number>,
    private readonly batchSize: number,
  ) {}

  /** Runs passes until nothing is left (or the node stops); answers how many items were claimed. */
  run(): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const passes = async () => {
      let total = 0;
      do {
        this.again = false;
        for (;;) {
          const claimed = await this.claimBatch();
          total += claimed;
          if (claimed < this.batchSize || this.stopped) break;
        }
      } while (this.again && !this.stopped);
      return total;
    };
    this.running = passes().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running?.catch(() => undefined);
  }
}
