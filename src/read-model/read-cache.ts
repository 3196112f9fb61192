// One bounded per-node cache of the read model: least recently used entries go first when it is
// full, and every entry also ages out after `ttlMs`, a backstop should an invalidation ever be
// missed (docs/read-model.md). Hits and misses are counted for /metrics.
//
// A value read from the database while an invalidation passed may be the old one: `epoch()` taken
// before the read and handed to `set` keeps such a value out (any invalidation moves the epoch).
import { LRUCache } from 'lru-cache';

export interface ReadCacheStats {
  name: string;
  size: number;
  hits: number;
  misses: number;
}

export class ReadCache<K extends string, V extends object> {
  private readonly entries: LRUCache<K, V>;
  private invalidations = 0;
  private hits = 0;
  private misses = 0;

  constructor(
    readonly name: string,
    bound: { max: number; ttlMs: number; maxBytes?: number; bytesOf?: (value: V, key: K) => number },
    /** False when caching is off or cannot be trusted now: every get misses and nothing is kept. */
    private readonly usable: () => boolean,
  ) {
    // Entries whose size varies (serialised answers) are also bounded by their total size.
    const sized =
      bound.maxBytes && bound.bytesOf ? { maxSize: bound.maxBytes, sizeCalculation: (value: V, key: K) => Math.max(1, bound.bytesOf!(value, key)) } : {};
    this.entries = new LRUCache<K, V>({ max: bound.max, ttl: bound.ttlMs, ttlAutopurge: false, ...sized });
  }

  get(key: K): V | undefined {
    const value = this.usable() ? this.entries.get(key) : undefined;
    if (value === undefined) this.misses++;
    else this.hits++;
    return value;
  }

  /** Whether the cache answers and keeps anything now (false: caching is off or not trusted). */
  active(): boolean {
    return this.usable();
  }

  /** Taken before reading what will be `set`. */
  epoch(): number {
    return this.invalidations;
  }

  /** Keeps `value` unless an invalidation came since `epoch` (then it may be stale). */
  set(key: K, value: V, epoch: number): void {
    if (epoch === this.invalidations && this.usable()) this.entries.set(key, value);
  }

  delete(key: K): void {
    this.invalidations++;
    this.entries.delete(key);
  }

  /** Drops every entry `stale` picks (an O(size) walk: for rare invalidations, a user's change). */
  deleteWhere(stale: (value: V, key: K) => boolean): void {
    this.invalidations++;
    for (const [key, value] of this.entries.entries()) if (stale(value, key)) this.entries.delete(key);
  }

  clear(): void {
    this.invalidations++;
    this.entries.clear();
  }

  stats(): ReadCacheStats {
    return { name: this.name, size: this.entries.size, hits: this.hits, misses: this.misses };
  }
}
