// The one way a domain wakes a worker of this node: the domain pokes when it has committed work
// for it (a video job queued, an erasure or export asked for, notifications stored), the worker
// (jobs/) listens and runs a round at once instead of waiting for its next poll. A poke carries
// nothing: the work is in the database, where the other nodes' pollers find it too. Facts others
// react to travel on the event bus (src/events.ts), not here.
export class WakeUp {
  private readonly listeners = new Set<() => void>();

  /** Wakes every listener now (synchronously; a listener starts its round without waiting). */
  poke(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** Calls `listener` on every poke until the returned function is called. */
  onPoke(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}
