// Opens the database for either mode and hands out one handle over it:
// - embedded (DATABASE_URL unset): PGlite in DATA_DIR/pgdata, guarded by a lock file so a
//   second process refuses the same directory (two processes on one data dir corrupt it);
// - server: node-postgres pool against DATABASE_URL.
// Both drivers speak the same SQL, so one set of migrations (src/db/migrations) serves both, and
// queries are drizzle-orm `sql` templates compiled to text and bound parameters here and sent
// to the driver directly (see docs/architecture.md for why no query builder).
import fs from 'node:fs';
import path from 'node:path';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { SQL } from 'drizzle-orm';
import type { Config } from '../config.js';
import type { Logger } from '../shared/logger.js';

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

const dialect = new PgDialect();

type Run = (text: string, params: unknown[]) => Promise<{ rows: unknown[] }>;

/** A Queryable over any driver call that takes (text, params) and answers {rows}. */
function queryableOver(run: Run): Queryable {
  return {
    rows: async <T>(query: SQL) => {
      const compiled = dialect.sqlToQuery(query);
      return (await run(compiled.sql, compiled.params as unknown[])).rows as T[];
    },
  };
}

/** `run`, timed for the observer, counting the queries under way. */
function observed(run: Run, observe: QueryObserver | undefined, active: { count: number }): Run {
  return async (text, params) => {
    const started = process.hrtime.bigint();
    active.count++;
    let failed = true;
    try {
      const result = await run(text, params);
      failed = false;
      return result;
    } finally {
      active.count--;
      observe?.(Number(process.hrtime.bigint() - started) / 1e9, failed);
    }
  };
}

function acquireDataDirLock(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, 'service.lock');
  const tryCreate = (): boolean => {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      return false;
    }
  };
  if (!tryCreate()) {
    // A lock left by a process that died (SIGKILL) is stale: take it over.
    const holder = Number(fs.readFileSync(lockFile, 'utf8').trim());
    let alive = false;
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid) {
      try {
        process.kill(holder, 0);
        alive = true;
      } catch (err) {
        alive = (err as NodeJS.ErrnoException).code === 'EPERM';
      }
    }
    if (alive) throw new Error(`DATA_DIR ${dataDir} is in use by process ${holder}`);
    fs.rmSync(lockFile, { force: true });
    if (!tryCreate()) throw new Error(`DATA_DIR ${dataDir} is in use`);
  }
  return () => fs.rmSync(lockFile, { force: true });
}

async function openEmbedded(config: Config, log: Logger, observe?: QueryObserver): Promise<DatabaseHandle> {
  const releaseLock = acquireDataDirLock(config.dataDir);
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
    const { unaccent } = await import('@electric-sql/pglite/contrib/unaccent');
    const { cube } = await import('@electric-sql/pglite/contrib/cube');
    const { earthdistance } = await import('@electric-sql/pglite/contrib/earthdistance');
    const client = await PGlite.create({
      dataDir: path.join(config.dataDir, 'pgdata'),
      extensions: { pg_trgm, unaccent, cube, earthdistance },
      // PGlite's own start parameters plus a smaller buffer cache: at PostgreSQL's default of
      // 128MB the shared buffers are most of an idle node's resident memory, and in embedded mode
      // the operating system's file cache holds the data files anyway (docs/operations.md).
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${config.PGLITE_SHARED_BUFFERS}`],
    });
    log.info({ dataDir: config.dataDir }, 'embedded PostgreSQL (PGlite) open');
    // One process owns the directory, so "advisory locks" only need to exclude this process's
    // own overlapping callers (two scheduler ticks, say).
    const held = new Set<number>();
    const tryWithAdvisoryLock = async <T>(key: number, fn: () => Promise<T>): Promise<T | undefined> => {
      if (held.has(key)) return undefined;
      held.add(key);
      try {
        return await fn();
      } finally {
        held.delete(key);
      }
    };
    const active = { count: 0 };
    const handle: DatabaseHandle = {
      mode: 'embedded',
      ...queryableOver(observed((text, params) => client.query(text, params), observe, active)),
      transaction: (fn) => client.transaction((tx) => fn(queryableOver(observed((text, params) => tx.query(text, params), observe, active)))),
      usage: () => ({ open: 1, max: 1, idle: active.count === 0 ? 1 : 0, waiting: Math.max(0, active.count - 1) }),
      withAdvisoryLock: async (key, fn) => {
        for (;;) {
          const result = await tryWithAdvisoryLock(key, async () => ({ value: await fn() }));
          if (result) return result.value;
          await new Promise((r) => setTimeout(r, 20));
        }
      },
      tryWithAdvisoryLock,
      execScript: async (script) => {
        try {
          await client.exec(script);
        } catch (err) {
          await client.exec('ROLLBACK').catch(() => undefined);
          throw err;
        }
      },
      ping: async () => {
        await client.query('select 1');
      },
      close: async () => {
        try {
          await client.query('CHECKPOINT');
          await client.close();
        } finally {
          releaseLock();
        }
      },
    };
    return handle;
  } catch (err) {
    releaseLock();
    throw err;
  }
}

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
  const active = { count: 0 };
  return {
    mode: 'server',
    ...queryableOver(observed((text, params) => pool.query(text, params), observe, active)),
    usage: () => ({ open: pool.totalCount, max: config.DATABASE_POOL_SIZE, idle: pool.idleCount, waiting: pool.waitingCount }),
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(queryableOver(observed((text, params) => client.query(text, params), observe, active)));
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

