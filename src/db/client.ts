// Opens the database for either mode and hands out one handle over it:
// - embedded (DATABASE_URL unset): PGlite in DATA_DIR/pgdata, guarded by a lock file so a
//   second process refuses the same directory (two processes on one data dir corrupt it), on a
//   database thread of its own or on the main thread (PGLITE_THREAD; see embedded.ts);
// - server: node-postgres pool against DATABASE_URL.
// Both drivers speak the same SQL, so one set of migrations (src/db/migrations) serves both, and
// queries are drizzle-orm `sql` templates compiled to text and bound parameters (queryable.ts) and sent
// to the driver directly (see docs/architecture.md for why no query builder).
import type { SQL } from 'drizzle-orm';
import type { Config } from '../config.js';
import type { Logger } from '../shared/logger.js';
import { openEmbedded } from './embedded.js';
import { observed, queryableOver } from './queryable.js';
import { StatementNames } from './statement-names.js';

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

async function openServer(config: Config, log: Logger, observe?: QueryObserver): Promise<DatabaseHandle> {
  const pg = (await import('pg')).default;
  // Return bigint columns (count(*)) as JS numbers; our counts stay far below 2^53.
  pg.types.setTypeParser(20, (v: string) => Number(v));
  // A server that accepts no connection must not hold requests forever: after 5 s the request
  // fails, and is answered 503 (src/shared/unavailable.ts).
  const pool = new pg.Pool({ connectionString: config.DATABASE_URL, max: config.DATABASE_POOL_SIZE, connectionTimeoutMillis: 5_000 });
  pool.on('error', (err) => log.error({ err }, 'idle PostgreSQL client failed'));
  // pg-pool listens for errors on idle clients only: a checked-out client (a transaction, a held
  // advisory lock) whose server goes away emits an 'error' nobody handles, which stops the process.
  // Its running query fails on its own; this listener keeps the node alive.
  pool.on('connect', (client) => {
    client.on('error', (err) => log.warn({ err: err.message }, 'PostgreSQL connection lost'));
  });
  const lockWith = async <T>(key: number, fn: () => Promise<T>, wait: boolean): Promise<T | undefined> => {
    // Session-level advisory locks belong to one connection: hold a dedicated client.
    const client = await pool.connect();
    try {
      if (wait) {
        await client.query('select pg_advisory_lock($1)', [key]);
      } else {
        const res = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [key]);
        if (!res.rows[0].locked) return undefined;
      }
      try {
        return await fn();
      } finally {
        await client.query('select pg_advisory_unlock($1)', [key]);
      }
    } finally {
      client.release();
    }
  };
  log.info('PostgreSQL server pool open');
  const statements = new StatementNames();
  const active = { count: 0 };
  return {
    mode: 'server',
    ...queryableOver(observed((text, params) => pool.query({ name: statements.nameOf(text), text, values: params }), observe, active)),
    usage: () => ({ open: pool.totalCount, max: config.DATABASE_POOL_SIZE, idle: pool.idleCount, waiting: pool.waitingCount }),
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(queryableOver(observed((text, params) => client.query({ name: statements.nameOf(text), text, values: params }), observe, active)));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    withAdvisoryLock: (key, fn) => lockWith(key, fn, true) as Promise<never>,
    tryWithAdvisoryLock: (key, fn) => lockWith(key, fn, false),
    execScript: async (script) => {
      const client = await pool.connect();
      try {
        await client.query(script);
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    ping: async () => {
      await pool.query('select 1');
    },
    close: async () => {
      await pool.end();
    },
  };
}

export async function openDatabase(config: Config, log: Logger, observeQuery?: QueryObserver): Promise<DatabaseHandle> {
  return config.embeddedDatabase ? openEmbedded(config, log, observeQuery) : openServer(config, log, observeQuery);
}

