// The node's metrics (GET /metrics, docs/operations.md): one prom-client registry per node — not
// the library's global one, since tests run several nodes in one process — holding the database
// and transport collectors made here and those each door adds (http/metrics.ts,
// realtime/transport/metrics.ts, jobs/metrics.ts). Process-wide figures (event-loop delay, heap, CPU, GC)
// describe the process, not a node, so they are collected once per process in a registry of
// their own and rendered beside the node's. The domain (src/) knows nothing of this: the database
// takes a query observer and reports its pool use.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DatabaseHandle, QueryObserver } from './src/db/client.js';
import type { Transport } from './http/transport.js';
import type { ReadModel } from './src/read-model/index.js';
import type { ListingIndex } from './src/content/index.js';
import type { StoreObserver } from './src/media/index.js';

let processRegistry: Registry | null = null;

/** Event-loop delay, memory, CPU, GC and handles of this process, collected once per process. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    // 10 ms resolution for the event-loop delay histogram (prom-client's default), which the
    // nodejs_eventloop_lag_* gauges summarise.
    collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: 10 });
  }
  return processRegistry;
}

/** Latency buckets (seconds) shared by the request, query and adapter histograms. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class NodeMetrics {
  readonly registry = new Registry();
  private readonly queryDuration: Histogram<'mode'>;
  private readonly queryErrors: Counter<'mode'>;
  private database: DatabaseHandle | null = null;
  private readonly storeRequests: Counter<'op'>;
  private readonly storeErrors: Counter<'op'>;

  constructor(
    private readonly mode: 'embedded' | 'server',
    transport: Transport,
  ) {
    const registers = [this.registry];
    processMetrics();
    new Gauge({
      name: 'transport_info',
      help: 'The HTTP/WebSocket transport this node runs (uws-native, or uws-js-fallback: the slow JavaScript fallback)',
      labelNames: ['transport'],
      registers,
    }).set({ transport }, 1);
    this.queryDuration = new Histogram({
      name: 'db_query_duration_seconds',
      help: 'Duration of database queries made by the repositories',
      labelNames: ['mode'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.queryErrors = new Counter({ name: 'db_query_errors_total', help: 'Database queries that failed', labelNames: ['mode'], registers });
    this.storeRequests = new Counter({
      name: 'media_store_requests_total',
      help: 'Requests to the media object store (MEDIA_STORAGE=s3), by operation',
      labelNames: ['op'],
      registers,
    });
    this.storeErrors = new Counter({
      name: 'media_store_errors_total',
      help: 'Requests to the media object store that failed, by operation',
      labelNames: ['op'],
      registers,
    });
    // The gauge's collect() has the gauge as `this`; it reads the registry's fields through this name.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const metrics = this;
    new Gauge({
      name: 'db_pool_connections',
      help: 'Database connections by state (embedded mode: the one PGlite connection)',
      labelNames: ['state'],
      registers,
      collect() {
        const usage = metrics.database?.usage();
        if (!usage) return;
        this.set({ state: 'open' }, usage.open);
        this.set({ state: 'idle' }, usage.idle);
        this.set({ state: 'in_use' }, usage.open - usage.idle);
        this.set({ state: 'max' }, usage.max);
      },
    });
    new Gauge({
      name: 'db_pool_waiting',
      help: 'Queries (or transactions) waiting for a database connection',
      registers,
      collect() {
        const usage = metrics.database?.usage();
        if (usage) this.set(usage.waiting);
      },
    });
  }

  /** The observer the database is opened with (before the handle exists). */
  readonly observeQuery: QueryObserver = (seconds, failed) => {
    this.queryDuration.observe({ mode: this.mode }, seconds);
    if (failed) this.queryErrors.inc({ mode: this.mode });
  };

  /**
   * The observer the media store is built with: its requests by operation, and those that failed
   * (a missing object looked up is not a failure). The local store makes no requests to count.
   */
  readonly observeStore: StoreObserver = (op, ok) => {
    this.storeRequests.inc({ op });
    if (!ok) this.storeErrors.inc({ op });
  };

  /** The listing index (docs/search.md): items held, and whether it answers now. */
  watchListingIndex(index: ListingIndex): void {
    const registers = [this.registry];
    new Gauge({
      name: 'listing_index_items',
      help: "Listed items held by this node's listing index",
      registers,
      collect() {
        this.set(index.size());
      },
    });
    new Gauge({
      name: 'listing_index_ready',
      help: "1 once this node's listing index has loaded (listings wait for it until then)",
      registers,
      collect() {
        this.set(index.ready() ? 1 : 0);
      },
    });
    // How the copy that answers was loaded (docs/search.md, "Start from a snapshot").
    new Gauge({
      name: 'listing_index_load_seconds',
      help: "Seconds the load of the listing index's answering copy took, by where it started from (snapshot, database)",
      labelNames: ['source'],
      registers,
      collect() {
        this.reset();
        const load = index.lastLoad();
        if (load) this.set({ source: load.source }, load.seconds);
      },
    });
    new Gauge({
      name: 'listing_index_catch_up_rows',
      help: 'Rows a start from a snapshot read again (reloaded: changed or new since it) or dropped (no longer listed)',
      labelNames: ['action'],
      registers,
      collect() {
        const load = index.lastLoad();
        this.set({ action: 'reloaded' }, load?.reloaded ?? 0);
        this.set({ action: 'dropped' }, load?.dropped ?? 0);
      },
    });
    new Gauge({
      name: 'listing_snapshots_written',
      help: 'Snapshots of the listed rows this node has written',
      registers,
      collect() {
        this.set(index.snapshotsWritten());
      },
    });
  }

  /** The read model's caches (src/read-model/): entries, hits and misses of each, read on every scrape. */
  watchReadModel(readModel: Omit<ReadModel, 'items'>): void {
    const registers = [this.registry];
    new Gauge({
      name: 'read_cache_entries',
      help: 'Entries held by each read cache of this node',
      labelNames: ['cache'],
      registers,
      collect() {
        for (const s of readModel.stats()) this.set({ cache: s.name }, s.size);
      },
    });
    new Counter({
      name: 'read_cache_lookups_total',
      help: 'Read cache lookups by cache and result (hit, miss)',
      labelNames: ['cache', 'result'],
      registers,
      collect() {
        this.reset();
        for (const s of readModel.stats()) {
          this.inc({ cache: s.name, result: 'hit' }, s.hits);
          this.inc({ cache: s.name, result: 'miss' }, s.misses);
        }
      },
    });
  }

  /** The opened database, whose pool use is read on every scrape. */
  watchDatabase(database: DatabaseHandle): void {
    this.database = database;
  }

  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;

  /** The text exposition of this node's metrics and the process's. */
  async render(): Promise<string> {
    const [node, process] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return `${node}\n${process}`;
  }
}
