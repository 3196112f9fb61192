// At most one flush per key per interval, and never a change left unflushed: the first change of
// a key flushes at once; changes during that flush and the interval after it are gathered into
// one more flush at the interval's end (which reads the state then, so the last flush always
// carries the final counts). The interval is counted from the end of a flush, so two flushes'
// effects (an emit after a read) are at least an interval apart however slow the read was.
export class KeyedThrottle {
  /** Keys flushing or inside their interval, and whether a change came meanwhile. */
  private readonly open = new Map<string, { dirty: boolean; timer: NodeJS.Timeout | null }>();
  private stopped = false;

  constructor(
    private readonly intervalMs: number,
    private readonly flush: (key: string) => Promise<void>,
  ) {}

  touch(key: string): void {
    const state = this.open.get(key);
    if (state) {
      state.dirty = true;
      return;
    }
    this.open.set(key, { dirty: false, timer: null });
    void this.flushThenWait(key);
  }

  private async flushThenWait(key: string): Promise<void> {
    await this.flush(key).catch(() => undefined);
    const state = this.open.get(key);
    if (!state || this.stopped) return;
    state.timer = setTimeout(() => {
      if (state.dirty) {
        state.dirty = false;
        state.timer = null;
        void this.flushThenWait(key);
      } else {
        this.open.delete(key);
      }
    }, this.intervalMs);
    state.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    for (const { timer } of this.open.values()) if (timer) clearTimeout(timer);
    this.open.clear();
  }
}
