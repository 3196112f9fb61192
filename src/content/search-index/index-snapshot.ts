// The listing index's snapshots (docs/search.md, "Start from a snapshot"): every listed row with
// its version, as compressed chunks in PostgreSQL, so that a node on any machine starts by reading
// them (a few large values) instead of every row again, then catches up with the rows whose
// version changed since (index-sync.ts). One node writes a new one when the newest is older than
// the interval (LISTING_SNAPSHOT_MINUTES), reading the rows from PostgreSQL in the background:
// the rows a node loaded are not kept for it, since that would hold a second copy of every row.
import { promisify } from 'node:util';
import { gunzip as gunzipCallback, gzip as gzipCallback } from 'node:zlib';
import type { Logger } from '../../shared/logger.js';
import type { DatabaseHandle } from '../../db/handle.js';
import type { ListingSnapshotRepository, SnapshotHeader, VersionedRow } from '../listing-snapshot-repository.js';
import type { IndexRow } from './index-types.js';

const gzip = promisify(gzipCallback);
const gunzip = promisify(gunzipCallback);

/**
 * The chunks' encoding: gzip (level 1) of the JSON text of an array of rows, each row the array of
 * its values in the header's column order (timestamps as ISO text, made Dates again for the
 * header's date columns). Bumped when that changes; a snapshot of another format is not read (the
 * node loads from the rows). JSON rather than v8.serialize: JSON.parse read the same rows in two
 * thirds of the time, and builds their nested objects (texts, video) as the driver's own
 * JSON.parse of json columns does.
 */
export const SNAPSHOT_FORMAT = 1;
/** Rows per chunk (about 0.4 MB compressed). */
export const SNAPSHOT_CHUNK_ROWS = 2_000;
/** Only one node writes a snapshot at a time. */
const WRITER_LOCK_KEY = 7_100_053;
const VERSION_COLUMN = 'listed_version';

/** One chunk of a snapshot: its rows, and each row's version. */
export interface SnapshotChunk {
  rows: IndexRow[];
  versions: string[];
}

/** A complete snapshot, opened for reading. */
export interface OpenedSnapshot {
  header: SnapshotHeader;
  /** Its chunks in order, read one ahead of the one being used (never all at once). */
  chunks(): AsyncGenerator<SnapshotChunk>;
}

export class IndexSnapshots {
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<unknown> | null = null;
  private written = 0;

  constructor(
    private readonly repository: ListingSnapshotRepository,
    private readonly locks: Pick<DatabaseHandle, 'tryWithAdvisoryLock'>,
    /** A new snapshot is written when the newest is older than this. */
    private readonly everyMs: number,
    private readonly log: Logger,
    private readonly chunkRows = SNAPSHOT_CHUNK_ROWS,
  ) {}

  /** Snapshots this node has written. */
  writes(): number {
    return this.written;
  }

  /** The versions of every listed row now (a start's catch-up). */
  listedVersions(): Promise<{ id: string; v: string }[]> {
    return this.repository.listedVersions();
  }

  /**
   * The newest complete snapshot if this code can read it: of this format, with the columns a row
   * has now (a column added since makes it unreadable); null otherwise.
   */
  async open(): Promise<OpenedSnapshot | null> {
    const header = await this.repository.newest();
    if (!header) return null;
    if (header.format !== SNAPSHOT_FORMAT) {
      this.log.info({ format: header.format }, 'listing snapshot: of another format; loading from the rows');
      return null;
    }
    const [sample] = await this.repository.versionedPage(null, 1);
    if (sample && !sameColumns(Object.keys(sample), header.columns)) {
      this.log.info('listing snapshot: its columns are not those of a row now; loading from the rows');
      return null;
    }
    return { header, chunks: () => this.chunks(header) };
  }

  private async *chunks(header: SnapshotHeader): AsyncGenerator<SnapshotChunk> {
    const read = async (seq: number): Promise<Buffer> => {
      const bytes = await this.repository.chunk(header.id, seq);
      if (!bytes) throw new Error(`listing snapshot ${header.id}: chunk ${seq} is gone`);
      return gunzip(bytes);
    };
    // The next chunk is fetched and decompressed (off this thread) while this one's rows are put.
    let next = header.chunk_count > 0 ? read(0) : null;
    for (let seq = 0; next; seq++) {
      const bytes = await next;
      next = seq + 1 < header.chunk_count ? read(seq + 1) : null;
      // A failed read ahead is reported when it is awaited; until then it must not count as unhandled.
      next?.catch(() => undefined);
      yield decode(bytes, header.columns, header.date_columns);
    }
  }

  /** Writes a snapshot now and then every interval (when due, on one node); until `stop`. */
  keepWritten(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.writeIfDue(), this.everyMs);
    this.timer.unref();
    void this.writeIfDue();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Writes a snapshot if the newest is older than the interval and no other node writes one now. */
  writeIfDue(): Promise<unknown> {
    this.writing ??= this.locks
      .tryWithAdvisoryLock(WRITER_LOCK_KEY, async () => {
        const newest = await this.repository.newest();
        if (newest && newest.age_ms < this.everyMs) return;
        await this.write();
      })
      .catch((err: unknown) => this.log.warn({ err }, 'listing snapshot: not written'))
      .finally(() => (this.writing = null));
    return this.writing;
  }

  private async write(): Promise<void> {
    const started = performance.now();
    let id: number | null = null;
    let columns: string[] = [];
    let rows = 0;
    let seq = 0;
    try {
      for (let after: string | null = null; ;) {
        const page: VersionedRow[] = await this.repository.versionedPage(after, this.chunkRows);
        if (!page.length) break;
        if (id === null) {
          columns = Object.keys(page[0]);
          const dates = columns.filter((c) => (page[0] as unknown as Record<string, unknown>)[c] instanceof Date);
          id = await this.repository.begin(SNAPSHOT_FORMAT, columns, dates);
        }
        await this.repository.addChunk(id, seq++, await encode(page, columns));
        rows += page.length;
        if (page.length < this.chunkRows) break;
        after = page[page.length - 1].id;
      }
      // Nothing listed: a start loads nothing anyway.
      if (id === null) return;
      await this.repository.complete(id, rows, seq);
      this.written++;
      this.log.info({ rows, chunks: seq, ms: Math.round(performance.now() - started) }, 'listing snapshot written');
    } catch (err) {
      if (id !== null) await this.repository.discard(id).catch(() => undefined);
      throw err;
    }
  }
}

const sameColumns = (a: string[], b: string[]): boolean => a.length === b.length && a.every((c, i) => c === b[i]);

/** The rows as arrays of values in `columns` order (the names once per chunk, not once per row), serialised and compressed. */
async function encode(rows: VersionedRow[], columns: string[]): Promise<Buffer> {
  const values = rows.map((row) => columns.map((c) => (row as unknown as Record<string, unknown>)[c]));
  return gzip(JSON.stringify(values), { level: 1 });
}

function decode(bytes: Buffer, columns: string[], dateColumns: string[]): SnapshotChunk {
  const values = JSON.parse(bytes.toString('utf8')) as unknown[][];
  if (!Array.isArray(values)) throw new Error('listing snapshot: a chunk is not a list of rows');
  const versionAt = columns.indexOf(VERSION_COLUMN);
  if (versionAt < 0) throw new Error('listing snapshot: no version column');
  const rows = new Array<IndexRow>(values.length);
  const versions = new Array<string>(values.length);
  // Each row is a copy of one object holding every column, then filled in: an object given its
  // thirty-odd properties one by one under computed names would turn into a slow dictionary,
  // which made every later read of the row (the index's put, each answer) several times slower.
  // JSON.parse builds the template with named properties.
  const template = JSON.parse(JSON.stringify(Object.fromEntries(columns.filter((_, c) => c !== versionAt).map((name) => [name, null])))) as object;
  const isDate = columns.map((c) => dateColumns.includes(c));
  for (let r = 0; r < values.length; r++) {
    const v = values[r];
    if (!Array.isArray(v) || v.length !== columns.length) throw new Error('listing snapshot: a row does not have its columns');
    const row: Record<string, unknown> = { ...template };
    for (let c = 0; c < columns.length; c++) if (c !== versionAt) row[columns[c]] = isDate[c] && v[c] !== null ? new Date(v[c] as string) : v[c];
    rows[r] = row as unknown as IndexRow;
    versions[r] = String(v[versionAt]);
  }
  return { rows, versions };
}
