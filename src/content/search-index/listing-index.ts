// The per-node listing index (CONTRACT §23, docs/search.md): every listed item (listedConditions)
// held in memory, the one engine of `/all`, `/completed`, their facets and the map clusters.
// PostgreSQL feeds it (index-sync.ts) and never answers a listing itself: a node whose index has
// not loaded makes a listing wait for it (bounded), then answers 503; a listing waits likewise for
// the item reloads heard before it, so it never shows an item older than a change already heard.
// Its jobs, one file each: sync (index-sync.ts), the held items and their selection
// (index-store.ts), pages and totals (index-query.ts), facets (index-facets.ts), clusters
// (index-clusters.ts).
import { serviceUnavailable } from '../../shared/unavailable.js';
import type { Logger } from '../../shared/logger.js';
import type { Cluster, ClusterBox } from './index-map.js';
import { IndexSync, type IndexChange, type IndexSource, type LoadReport, type SnapshotStart } from './index-sync.js';
import type { IndexStore } from './index-store.js';
import { pageOf } from './index-query.js';
import { facetsOf } from './index-facets.js';
import { clustersOf } from './index-clusters.js';
import type { FacetName, Facets, IndexPage, IndexQuery, IndexSort } from './index-types.js';

/** How long a listing waits for the index to load (or for the reloads heard before it) before it answers 503. */
export const LISTING_WAIT_MS = 10_000;

/** One request's view of the index: every answer it gives comes from the same loaded copy. */
export interface IndexView {
  page(query: IndexQuery, sort: IndexSort, page: number, perPage: number): IndexPage;
  facets(query: IndexQuery, names: readonly FacetName[]): Facets;
  clusters(query: IndexQuery, box: ClusterBox, hidden: ReadonlySet<string>): { clusters: Cluster[]; total: number };
}

const viewOf = (store: IndexStore): IndexView => ({
  page: (query, sort, page, perPage) => pageOf(store, query, sort, page, perPage),
  facets: (query, names) => facetsOf(store, query, names),
  clusters: (query, box, hidden) => clustersOf(store, query, box, hidden),
});

export class ListingIndex {
  private readonly sync: IndexSync;

  constructor(
    source: IndexSource,
    hears: () => boolean,
    log: Logger,
    private readonly waitMs = LISTING_WAIT_MS,
    mayLoad?: Promise<void>,
    /** Where the first load may start from (none: from the rows). */
    private readonly snapshot: SnapshotStart | null = null,
  ) {
    this.sync = new IndexSync(source, hears, log, mayLoad, snapshot);
  }

  /** How the copy that answers was loaded (null before the first load; /metrics). */
  lastLoad(): LoadReport | null {
    return this.sync.lastLoad();
  }

  /** Snapshots this node has written (/metrics). */
  snapshotsWritten(): number {
    return this.snapshot?.snapshots.writes() ?? 0;
  }

  /** Whether a loaded copy answers listings now (/readyz, /metrics). */
  ready(): boolean {
    return this.sync.store() !== null;
  }

  /** Items held (for /metrics and the docs' memory figures). */
  size(): number {
    return this.sync.store()?.size() ?? 0;
  }

  /** Full loads completed so far. */
  loads(): number {
    return this.sync.loads();
  }

  start(): Promise<void> {
    return this.sync.start();
  }

  stop(): void {
    this.sync.stop();
  }

  reloadAll(): Promise<void> {
    return this.sync.reloadAll();
  }

  changed(change: IndexChange): Promise<void> {
    return this.sync.changed(change);
  }

  /** Resolves once the current load (if any) is over. */
  settled(): Promise<void> {
    return this.sync.settled();
  }

  /**
   * The index as it answers this request: once loaded and once the item reloads heard before now
   * are applied, waiting up to `waitMs` for both; past that, 503 (Retry-After) rather than an
   * answer from elsewhere.
   */
  async view(): Promise<IndexView> {
    const store = this.sync.store();
    const reloaded = this.sync.reloaded();
    if (store && !reloaded) return viewOf(store);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.waitMs)));
    try {
      const done = await Promise.race([Promise.all([this.sync.loaded(), reloaded]).then(() => true), timeout]);
      const now = this.sync.store();
      if (!done || !now) throw serviceUnavailable();
      return viewOf(now);
    } finally {
      clearTimeout(timer);
    }
  }
}
