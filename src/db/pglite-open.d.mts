// Types of pglite-open.mjs (plain JavaScript, see there).
import type { PGlite } from '@electric-sql/pglite';

export interface PgliteOptions {
  /** The PostgreSQL data directory (DATA_DIR/pgdata). */
  pgdata: string;
  /** shared_buffers, e.g. 32MB. */
  sharedBuffers: string;
}

export function openPglite(options: PgliteOptions): Promise<PGlite>;
