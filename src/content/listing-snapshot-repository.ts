// The SQL of the listing index's snapshots (docs/search.md, "Start from a snapshot"): the listed
// rows with their versions, page by page (to write a snapshot), the versions of every listed row
// now (a start's catch-up), and the snapshots' headers and chunks (migration 0053).
import { sql } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { textArray } from '../db/sql-fragments.js';
import { INDEX_COLUMNS, listedConditions } from './listing-repository.js';
import type { IndexRow } from './search-index/index-types.js';

/**
 * A listed row's version: the transaction ids that wrote its item's row and its uploader's row
 * (xmin). Every change of what the index keeps of an item (its columns, its counts, a hold, its
 * uploader's name, picture or phone) writes one of the two rows, which gives it a new xmin; read
 * in the same statement as the row, it names exactly the state read. xmin is 32 bits: a changed
 * row gets its old xmin back only four billion transactions later.
 */
const LISTED_VERSION = sql`c.xmin::text || '.' || u.xmin::text`;

const where = sql.join(listedConditions(), sql` and `);

/** A listed row as a snapshot holds it: the index's row and its version. */
export type VersionedRow = IndexRow & { listed_version: string };

export interface SnapshotHeader {
  id: number;
  format: number;
  columns: string[];
  date_columns: string[];
  row_count: number;
  chunk_count: number;
  /** How long ago it was completed (by the database's clock). */
  age_ms: number;
}

export class ListingSnapshotRepository extends Repository {
  /** A page of every listed row with its version, in id order after `afterId`. */
  versionedPage(afterId: string | null, limit: number): Promise<VersionedRow[]> {
    const after = afterId ? sql`and c.id > ${afterId}::uuid` : sql``;
    return this.db.rows<VersionedRow>(sql`
      select ${INDEX_COLUMNS}, ${LISTED_VERSION} as listed_version from contents c join users u on u.id = c.uploader_id
      where ${where} ${after} order by c.id limit ${limit}`);
  }

  /** The id and version of every listed row now (one statement: a start's catch-up compares them with its snapshot's). */
  listedVersions(): Promise<{ id: string; v: string }[]> {
    return this.db.rows<{ id: string; v: string }>(sql`
      select c.id, ${LISTED_VERSION} as v from contents c join users u on u.id = c.uploader_id where ${where}`);
  }

  /** The newest complete snapshot, if any. */
  async newest(): Promise<SnapshotHeader | null> {
    const [row] = await this.db.rows<SnapshotHeader>(sql`
      select id, format, columns, date_columns, row_count, chunk_count, (extract(epoch from now() - completed_at) * 1000)::float8 as age_ms
      from listing_snapshots where completed_at is not null order by completed_at desc, id desc limit 1`);
    return row ?? null;
  }

  /** One chunk's bytes (null when it is gone: a newer snapshot replaced this one meanwhile). */
  async chunk(snapshotId: number, seq: number): Promise<Uint8Array | null> {
    const [row] = await this.db.rows<{ bytes: Uint8Array }>(sql`
      select bytes from listing_snapshot_chunks where snapshot_id = ${snapshotId} and seq = ${seq}`);
    return row?.bytes ?? null;
  }

  /**
   * A new snapshot, not yet complete; the incomplete ones left by writers that stopped go (the
   * caller holds the writers' lock, so none of them is still being written).
   */
  async begin(format: number, columns: string[], dateColumns: string[]): Promise<number> {
    await this.db.rows(sql`delete from listing_snapshots where completed_at is null`);
    const [row] = await this.db.rows<{ id: number }>(sql`
      insert into listing_snapshots (format, columns, date_columns) values (${format}, ${textArray(columns)}, ${textArray(dateColumns)}) returning id`);
    return Number(row.id);
  }

  addChunk(snapshotId: number, seq: number, bytes: Uint8Array): Promise<unknown> {
    return this.db.rows(sql`insert into listing_snapshot_chunks (snapshot_id, seq, bytes) values (${snapshotId}, ${seq}, ${bytes})`);
  }

  /** Marks the snapshot complete; every other one goes (only the newest complete one is kept). */
  async complete(snapshotId: number, rowCount: number, chunkCount: number): Promise<void> {
    await this.db.rows(sql`
      update listing_snapshots set completed_at = now(), row_count = ${rowCount}, chunk_count = ${chunkCount} where id = ${snapshotId}`);
    await this.db.rows(sql`delete from listing_snapshots where id <> ${snapshotId}`);
  }

  discard(snapshotId: number): Promise<unknown> {
    return this.db.rows(sql`delete from listing_snapshots where id = ${snapshotId}`);
  }
}
