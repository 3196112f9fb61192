// Opens the database for either mode and hands out one handle over it:
// - embedded (DATABASE_URL unset): PGlite in DATA_DIR/pgdata, guarded by a lock file so a
//   second process refuses the same directory (two processes on one data dir corrupt it), on a
//   database thread of its own or on the main thread (PGLITE_THREAD; see embedded.ts);
// - server: node-postgres pool against DATABASE_URL, every wait on it bounded (server.ts).
// Both drivers speak the same SQL, so one set of migrations (src/db/migrations) serves both, and
// queries are drizzle-orm `sql` templates compiled to text and bound parameters (queryable.ts) and sent
// to the driver directly (see docs/architecture.md for why no query builder).
import type { SQL } from 'drizzle-orm';
import type { Config } from '../config.js';
import type { Logger } from '../shared/logger.js';
import { openEmbedded } from './embedded.js';
import { openServer } from './server.js';

/**
 * What a repository runs its SQL on: the database, or a transaction on it. Every query of the
 * service goes through `rows`, straight to the driver (PGlite or node-postgres) with the same
 * type parsing in both modes: timestamptz and date as Date, int8 as number, numeric as string,
 * json as values.
 */
export interface Queryable {
  rows<T = Record<string, unknown>>(query: SQL): Promise<T[]>;
}

export interface DatabaseHandle extends Queryable {
  /** Runs fn in one transaction: committed when fn resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * The same database for jobs' statements that may take minutes (ANALYZE, roll-ups): in server
   * mode a statement otherwise waits at most DATABASE_TIMEOUT_MS for its answer. Never for a request.
   */
  longRunning: Pick<DatabaseHandle, 'rows' | 'transaction'>;
  /** Runs fn while holding a session-level advisory lock (one holder across all nodes). Waits for it. */
  withAdvisoryLock<T>(key: number, fn: () => Promise<T>): Promise<T>;
  /** Runs fn only if the advisory lock is free now; returns undefined when another node holds it. */
  tryWithAdvisoryLock<T>(key: number, fn: () => Promise<T>): Promise<T | undefined>;
  /** Runs a multi-statement SQL script on one connection (migrations). */
  execScript(script: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Connections now: for metrics (embedded: the one PGlite connection and the queries queued on it). */
  usage(): PoolUsage;
  mode: 'embedded' | 'server';
}

export interface PoolUsage {
  /** Connections open. */
  open: number;
  /** Most connections the pool opens. */
  max: number;
  /** Open connections not running anything. */
  idle: number;
  /** Queries (or checkouts) waiting for a connection. */
  waiting: number;
}

/** Told the duration of every repository query and whether it failed (metrics hook; see service.ts). */
export type QueryObserver = (seconds: number, failed: boolean) => void;

export async function openDatabase(config: Config, log: Logger, observeQuery?: QueryObserver): Promise<DatabaseHandle> {
  return config.embeddedDatabase ? openEmbedded(config, log, observeQuery) : openServer(config, log, observeQuery);
}

