// The database handle as its users and its two drivers see it: types only, so that the opener
// (client.ts) and the drivers it picks between (embedded.ts, server.ts) all import them from below.
import type { SQL } from 'drizzle-orm';

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

/** A driver call: runs one statement with its parameters. */
export type Run = (text: string, params: unknown[]) => Promise<{ rows: unknown[] }>;

/** PGlite as the handle needs it, wherever it runs. */
export interface EmbeddedEngine {
  query: Run;
  /** Runs fn in one transaction, its statements sent through `query`; commits when fn resolves, rolls back when it throws. */
  transaction<T>(fn: (query: Run) => Promise<T>): Promise<T>;
  /** Runs a multi-statement script; rolls back what it left open when it fails. */
  exec(script: string): Promise<void>;
  /** Checkpoints and closes the database. */
  close(): Promise<void>;
}
