// Opens the database for either mode and hands out one handle over it:
// - embedded (DATABASE_URL unset): PGlite in DATA_DIR/pgdata, guarded by a lock file so a
//   second process refuses the same directory (two processes on one data dir corrupt it), on a
//   database thread of its own or on the main thread (PGLITE_THREAD; see embedded.ts);
// - server: node-postgres pool against DATABASE_URL, every wait on it bounded (server.ts).
// Both drivers speak the same SQL, so one set of migrations (src/db/migrations) serves both, and
// queries are drizzle-orm `sql` templates compiled to text and bound parameters (queryable.ts) and sent
// to the driver directly (see docs/architecture.md for why no query builder).
import type { Config } from '../config.js';
import type { Logger } from '../shared/logger.js';
import { openEmbedded } from './embedded.js';
import { openServer } from './server.js';
import type { DatabaseHandle, QueryObserver } from './handle.js';

// The handle's types live in handle.ts, below the two drivers that implement them; most code
// meets them here, beside the function that opens the database.
export type { DatabaseHandle, PoolUsage, QueryObserver, Queryable } from './handle.js';

export async function openDatabase(config: Config, log: Logger, observeQuery?: QueryObserver): Promise<DatabaseHandle> {
  return config.embeddedDatabase ? openEmbedded(config, log, observeQuery) : openServer(config, log, observeQuery);
}
