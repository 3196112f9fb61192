// Work that must still happen once a dependency answers again (a notice to the other nodes, a
// revocation whose commit is unknown): items are tried in order every `everyMs` until each
// succeeds; `attempt` throws to say "not yet" (later items wait behind it). Bounded: past `max`
// items the oldest is dropped, and `onDropped` says so. In memory: lost if the node stops.
export class RetryQueue<T> {
  private readonly items: T[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(
    private readonly attempt: (item: T) => Promise<void>,
    private readonly everyMs: number,
    private readonly max: number,
    private readonly onDropped: () => void,
  ) {}

  add(item: T): void {
    this.items.push(item);
    if (this.items.length > this.max) {
      this.items.shift();
      this.onDropped();
    }
    this.timer ??= setInterval(() => void this.run(), this.everyMs);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.items.length) {
        await this.attempt(this.items[0]);
        this.items.shift();
      }
      this.close();
    } catch {
      // Not yet: the next tick tries again.
    } finally {
      this.running = false;
    }
  }
}
