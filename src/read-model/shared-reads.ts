// Concurrent misses of one cache key share one database read instead of each making its own (a
// profile many viewers open at once). A read is shared only with callers that arrive before any
// invalidation of its cache: one that arrives after reads again, so it never gets a value read
// before the change it may have been told of. Only reads in flight are held (bounded by the
// requests in flight).
export class SharedReads<V> {
  private readonly flights = new Map<string, { epoch: number; value: Promise<V> }>();

  /** `load`'s value for `key`, or that of the read of `key` already in flight since `epoch` (the cache's, taken now). */
  read(key: string, epoch: number, load: () => Promise<V>): Promise<V> {
    const flight = this.flights.get(key);
    if (flight && flight.epoch === epoch) return flight.value;
    const value: Promise<V> = load().finally(() => {
      if (this.flights.get(key)?.value === value) this.flights.delete(key);
    });
    this.flights.set(key, { epoch, value });
    return value;
  }
}
