// Keeps the listing index true to PostgreSQL (docs/search.md, "What the index holds and how it
// stays true"): a full load at start, in pages; a reload of each item (or uploader's items) a
// change names; a full reload in the background when everything may have changed (a bulk write,
// a lost link between nodes, a failed item reload), swapped in when loaded while the copy before
// it goes on answering. PostgreSQL only feeds the index here: it never answers a listing. The
// first load starts from the newest snapshot when there is one (docs/search.md, "Start from a
// snapshot"): its rows, then the rows whose version changed since, read again.
import type { Logger } from '../../shared/logger.js';
import { IndexStore } from './index-store.js';
import type { IndexSnapshots } from './index-snapshot.js';
import type { IndexRow } from './index-types.js';

/** What a change of listed items names: one item, every item of one uploader, or anything. */
export type IndexChange = { kind: 'item'; contentId: string } | { kind: 'uploader'; userId: string } | { kind: 'all' };

/** Where the listed rows are read from (listing-repository.ts: exactly the rows listedConditions selects). */
export interface IndexSource {
  indexPage(afterId: string | null, limit: number): Promise<IndexRow[]>;
  indexRow(id: string): Promise<IndexRow[]>;
  indexRows(ids: readonly string[]): Promise<IndexRow[]>;
  indexRowsOf(uploaderId: string): Promise<IndexRow[]>;
}

const LOAD_PAGE = 2_000;
/** A start's catch-up reads the changed rows this many at a time. */
const CATCH_UP_BATCH = 1_000;

/** How the copy that answers was loaded (/metrics). */
export interface LoadReport {
  source: 'snapshot' | 'database';
  /** From the load's start to its swap. */
  seconds: number;
  /** Rows of the snapshot read again (changed or new since), and dropped (no longer listed). */
  reloaded: number;
  dropped: number;
}

/** The test seams of a start from a snapshot. */
export interface SnapshotStart {
  snapshots: IndexSnapshots;
  /** Resolves when the catch-up may begin, once the snapshot's rows are in (a test holds it). */
  beforeCatchUp?: Promise<void>;
}
/** A failed full load is tried again after 1 s, doubling up to 30 s. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;
/**
 * While this node does not hear the others (Redis or the PostgreSQL listener down), their changes
 * may be missed: everything is read again this often, so a listing is at most this (plus one
 * load) behind another node's change; hearing again reloads at once (the relay's `everything`).
 */
export const DEAF_RELOAD_MS = 30_000;

export class IndexSync {
  /** The copy that answers (null until the first load is over). */
  private current: IndexStore | null = null;
  /** A copy being loaded, swapped in when done. */
  private next: IndexStore | null = null;
  /** Bumped by every full (re)load: a load that is no longer the latest stops. */
  private generation = 0;
  /** A sequence number per change heard, and the latest one per item or uploader changed while reloads or a load run. */
  private sequence = 0;
  private readonly changedAt = new Map<string, number>();
  private readonly changedUploaderAt = new Map<string, number>();
  /** Item reloads under way: a listing waits for those begun before it. */
  private readonly reloads = new Set<Promise<void>>();
  private loading: Promise<void> | null = null;
  private firstLoad: Promise<void>;
  private markLoaded!: () => void;
  private fullLoads = 0;
  /** Failed full loads in a row, and the timer of the next try. */
  private failedLoads = 0;
  private retry: NodeJS.Timeout | null = null;
  private deafTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private report: LoadReport | null = null;

  constructor(
    private readonly source: IndexSource,
    private readonly hears: () => boolean,
    private readonly log: Logger,
    /** Resolves when the first load may begin (a test holds it back; otherwise at once). */
    private readonly mayLoad: Promise<void> = Promise.resolve(),
    /** Where a first load may start from (none: always from the rows). */
    private readonly snapshot: SnapshotStart | null = null,
  ) {
    this.firstLoad = new Promise((resolve) => (this.markLoaded = resolve));
  }

  /** The copy that answers, as it is now (null before the first load). */
  store(): IndexStore | null {
    return this.current;
  }

  /** Full loads completed so far. */
  loads(): number {
    return this.fullLoads;
  }

  /** How the copy that answers was loaded (null before the first load). */
  lastLoad(): LoadReport | null {
    return this.report;
  }

  /** Resolves once a first load is over. */
  loaded(): Promise<void> {
    return this.firstLoad;
  }

  /** Resolves once the item reloads under way now are over (they are short: one query each); null when none is. */
  reloaded(): Promise<void> | null {
    return this.reloads.size ? Promise.all([...this.reloads]).then(() => undefined) : null;
  }

  /** Starts the first load (resolves when loaded, or when it failed: it is then tried again with backoff). */
  async start(): Promise<void> {
    this.deafTimer = setInterval(() => {
      if (!this.hears() && !this.loading) void this.reloadAll();
    }, DEAF_RELOAD_MS);
    this.deafTimer.unref();
    await this.mayLoad;
    await this.reloadAll(this.snapshot !== null);
  }

  stop(): void {
    this.stopped = true;
    this.snapshot?.snapshots.stop();
    if (this.retry) clearTimeout(this.retry);
    if (this.deafTimer) clearInterval(this.deafTimer);
    this.retry = null;
    this.deafTimer = null;
  }

  /** Loads everything again into a new copy, swapped in when done; resolves then (or when the load failed). */
  reloadAll(fromSnapshot = false): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const generation = ++this.generation;
    const load = this.load(generation, fromSnapshot).then(
      () => {
        if (generation === this.generation) this.failedLoads = 0;
      },
      (error: unknown) => {
        if (generation !== this.generation || this.stopped) return;
        this.next = null;
        const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** this.failedLoads++);
        this.log.warn(
          { err: error, retryInMs: delay },
          this.current
            ? 'listing index: reload failed; the loaded copy answers until one succeeds'
            : 'listing index: load failed; listings wait until it loads',
        );
        this.retry = setTimeout(() => void this.reloadAll(), delay);
        this.retry.unref();
      },
    );
    const tracked = load.finally(() => {
      if (this.loading === tracked) this.loading = null;
      this.forgetChangesWhenIdle();
    });
    this.loading = tracked;
    return tracked;
  }

  private async load(generation: number, fromSnapshot: boolean): Promise<void> {
    const started = performance.now();
    let store = (this.next = new IndexStore());
    let caughtUp: { reloaded: number; dropped: number } | null = null;
    if (fromSnapshot && this.snapshot) {
      try {
        caughtUp = await this.loadSnapshot(this.snapshot, store, generation);
      } catch (err) {
        if (generation !== this.generation) return;
        this.log.warn({ err }, 'listing index: the snapshot could not be read; loading from the rows');
      }
      // Without a snapshot read, the rows are loaded into a copy of their own.
      if (!caughtUp) store = this.next = new IndexStore();
    }
    if (!caughtUp) await this.loadRows(store, generation);
    if (generation !== this.generation) return;
    store.finish();
    this.current = store;
    this.next = null;
    this.fullLoads++;
    const seconds = (performance.now() - started) / 1000;
    this.report = { source: caughtUp ? 'snapshot' : 'database', seconds, reloaded: caughtUp?.reloaded ?? 0, dropped: caughtUp?.dropped ?? 0 };
    this.markLoaded();
    this.log.info({ items: store.size(), ...this.report }, 'listing index loaded');
    // Once this node answers, it keeps a recent snapshot for the nodes that start after it.
    this.snapshot?.snapshots.keepWritten();
  }

  /**
   * Puts the newest snapshot's rows, then reads again those whose version is not the snapshot's
   * (changed or new since) and drops those no longer listed. Changes heard meanwhile go through
   * the same sequence marks as a load's. Null when there is no snapshot to read (or the load is
   * no longer the latest).
   */
  private async loadSnapshot(start: SnapshotStart, store: IndexStore, generation: number): Promise<{ reloaded: number; dropped: number } | null> {
    const opened = await start.snapshots.open();
    if (!opened) return null;
    const readFrom = this.sequence;
    const versions = new Map<string, string>();
    for await (const chunk of opened.chunks()) {
      if (generation !== this.generation) return null;
      for (let i = 0; i < chunk.rows.length; i++) {
        const row = chunk.rows[i];
        versions.set(row.id, chunk.versions[i]);
        if (this.unchangedSince(row.id, row.uploader_id, readFrom)) store.put(row);
      }
    }
    await start.beforeCatchUp;
    const checkedFrom = this.sequence;
    const stale: string[] = [];
    for (const { id, v } of await start.snapshots.listedVersions()) {
      if (versions.get(id) !== v) stale.push(id);
      versions.delete(id);
    }
    if (generation !== this.generation) return null;
    // What is left was listed when the snapshot was taken and is not now.
    let dropped = 0;
    for (const id of versions.keys()) if (this.dropUnchanged(store, id, checkedFrom)) dropped++;
    for (let i = 0; i < stale.length; i += CATCH_UP_BATCH) {
      const batch = stale.slice(i, i + CATCH_UP_BATCH);
      const readAt = this.sequence;
      const rows = await this.source.indexRows(batch);
      if (generation !== this.generation) return null;
      const fresh = new Set<string>();
      for (const row of rows) {
        fresh.add(row.id);
        if (this.unchangedSince(row.id, row.uploader_id, readAt)) store.put(row);
      }
      // Unlisted between the versions' statement and this one.
      for (const id of batch) if (!fresh.has(id) && this.dropUnchanged(store, id, readAt)) dropped++;
    }
    return { reloaded: stale.length, dropped };
  }

  /** Drops the item unless a change heard after `sequence` already put it as it is now. */
  private dropUnchanged(store: IndexStore, id: string, sequence: number): boolean {
    const uploaderId = store.uploaderOf(id);
    if (uploaderId === undefined || !this.unchangedSince(id, uploaderId, sequence)) return false;
    store.drop(id);
    return true;
  }

  /** Every listed row, read page by page. */
  private async loadRows(store: IndexStore, generation: number): Promise<void> {
    let after: string | null = null;
    for (;;) {
      const startedAt = this.sequence;
      const rows = await this.source.indexPage(after, LOAD_PAGE);
      if (generation !== this.generation) return;
      // A row read before a later change of its item is left to that change's reload.
      for (const row of rows) if (this.unchangedSince(row.id, row.uploader_id, startedAt)) store.put(row);
      if (rows.length < LOAD_PAGE) break;
      after = rows[rows.length - 1].id;
    }
  }

  private unchangedSince(id: string, uploaderId: string, sequence: number): boolean {
    return (this.changedAt.get(id) ?? 0) <= sequence && (this.changedUploaderAt.get(uploaderId) ?? 0) <= sequence;
  }

  /** The marks of changes are needed only while a reload or a load could still put an older row. */
  private forgetChangesWhenIdle(): void {
    if (this.reloads.size === 0 && !this.loading) {
      this.changedAt.clear();
      this.changedUploaderAt.clear();
    }
  }

  /** A change heard (here or from another node): reloads what it touched, in every copy; resolves once done. */
  changed(change: IndexChange): Promise<void> {
    if (change.kind === 'all') return this.reloadAll();
    const sequence = ++this.sequence;
    if (change.kind === 'item') this.changedAt.set(change.contentId, sequence);
    else this.changedUploaderAt.set(change.userId, sequence);
    const reload = this.reload(change, sequence).finally(() => {
      this.reloads.delete(reload);
      this.forgetChangesWhenIdle();
    });
    this.reloads.add(reload);
    return reload;
  }

  private async reload(change: Exclude<IndexChange, { kind: 'all' }>, sequence: number): Promise<void> {
    try {
      const rows = change.kind === 'item' ? await this.source.indexRow(change.contentId) : await this.source.indexRowsOf(change.userId);
      for (const store of [this.current, this.next]) {
        if (!store) continue;
        const fresh = new Set<string>();
        for (const row of rows) {
          fresh.add(row.id);
          if (this.unchangedSince(row.id, row.uploader_id, sequence)) store.put(row);
        }
        // What is no longer listed goes.
        const gone = change.kind === 'item' ? [change.contentId] : store.idsOfUploader(change.userId);
        for (const id of gone) {
          const uploaderId = store.uploaderOf(id);
          if (!fresh.has(id) && uploaderId !== undefined && this.unchangedSince(id, uploaderId, sequence)) store.drop(id);
        }
      }
    } catch (error) {
      // The item may be stale now: everything is read again, the loaded copy answering meanwhile.
      this.log.error({ err: error }, 'listing index: an item could not be reloaded; reading everything again');
      void this.reloadAll();
    }
  }

  /** Resolves once the current load (if any) is over. */
  async settled(): Promise<void> {
    await this.loading;
  }
}
