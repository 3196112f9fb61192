// Server mode: a node-postgres pool against DATABASE_URL, with every wait on it bounded, so an
// outage answers 503 within 5 s whether PostgreSQL refuses connections or stops answering on them
// (CONTRACT §14):
// - a connection, new or pooled, comes within DATABASE_TIMEOUT_MS, or the request fails;
// - each statement is answered within DATABASE_TIMEOUT_MS, or its connection is destroyed (never
//   used again: its answer may still come) and the request fails. Both failures are outages,
//   answered 503 (src/shared/unavailable.ts); connections that stopped answering are dropped, so
//   the pool opens fresh ones as soon as the server answers again;
// - a transaction's COMMIT goes in one message with `commit_before(deadline)` (migration 0014): a
//   COMMIT held up on the way and delivered after the node stopped waiting for it raises instead,
//   and the transaction rolls back. Statements sent before it never commit on their own: without
//   a COMMIT, the transaction ends with the connection;
// - PostgreSQL ends a session left idle inside a transaction (its client gone) after
//   IDLE_IN_TRANSACTION_MS, freeing its locks, and checks every second during a statement that
//   its client is still there (client_connection_check_interval), cancelling it otherwise.
// What cannot be guaranteed: a lone statement (no transaction) that reached the network before
// the node gave up may still run when the link returns, although the node answered 503 for it.
// Migrations, and the wait for an advisory lock, are not bounded this way (see docs/operations.md).
import type pg from 'pg';
import { sql } from 'drizzle-orm';
import type { Config } from '../config.js';
import type { Logger } from '../shared/logger.js';
import type { DatabaseHandle, QueryObserver, Queryable, Run } from './handle.js';
import { answeredWithin, destroyConnection } from './answered-within.js';
import { observed, queryableOver } from './queryable.js';
import { StatementNames } from './statement-names.js';

/** A session idle inside a transaction this long is ended by PostgreSQL itself. */
const IDLE_IN_TRANSACTION_MS = 10_000;
/** Statements of jobs' upkeep (ANALYZE, roll-ups) may take this long (DatabaseHandle.longRunning). */
const LONG_RUNNING_MS = 10 * 60_000;
/** The longest wait for an advisory lock another node holds (a job, start-up migrations). */
const ADVISORY_LOCK_WAIT_MS = 10 * 60_000;
/**
 * A COMMIT must run this long before the node stops waiting for its answer, so that the answer of
 * a commit that ran in time can still arrive (and assuming the clocks of node and server agree
 * within it).
 */
const COMMIT_ANSWER_MARGIN_MS = 500;

/**
 * bigint columns (count(*)) as JS numbers; our counts stay far below 2^53. Made out here: the
 * parser is registered in the pg module for the life of the process, and a function made inside
 * openServer would keep that function's scope (its query observer, and so the service) alive.
 */
const bigintAsNumber = (v: string) => Number(v);

export async function openServer(config: Config, log: Logger, observe?: QueryObserver): Promise<DatabaseHandle> {
  const pg = (await import('pg')).default;
  pg.types.setTypeParser(20, bigintAsNumber);
  const timeoutMs = config.DATABASE_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: config.DATABASE_URL,
    max: config.DATABASE_POOL_SIZE,
    // Covers both a connection being made and the wait for a pooled one to come free.
    connectionTimeoutMillis: timeoutMs,
    keepAlive: true,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    options: '-c client_connection_check_interval=1000',
  });
  pool.on('error', (err) => log.error({ err }, 'idle PostgreSQL client failed'));
  // pg-pool listens for errors on idle clients only: a checked-out client (a transaction, a held
  // advisory lock) whose server goes away emits an 'error' nobody handles, which stops the process.
  // Its running query fails on its own; this listener keeps the node alive.
  pool.on('connect', (client) => {
    client.on('error', (err) => log.warn({ err: err.message }, 'PostgreSQL connection lost'));
  });

  /** Connections given up because they did not answer: destroyed, never handed out again. */
  const abandoned = new WeakSet<pg.PoolClient>();
  const release = (client: pg.PoolClient) => client.release(abandoned.has(client));

  /** Sends one statement on `client` and waits at most `ms` for its answer; past that the connection goes. */
  const answered = <T>(client: pg.PoolClient, ms: number, send: () => Promise<T>, what?: string): Promise<T> =>
    answeredWithin(ms, send, () => (abandoned.add(client), destroyConnection(client)), what);

  const statements = new StatementNames();
  const active = { count: 0 };
  /** `client` as a Run whose every statement is answered within `ms`. */
  const runOn =
    (client: pg.PoolClient, ms: number): Run =>
    (text, values) =>
      answered(client, ms, () => client.query({ name: statements.nameOf(text), text, values }));

  /** Lone statements and transactions whose statements wait at most `ms` each. */
  const queriesWithin = (ms: number): Pick<DatabaseHandle, 'rows' | 'transaction'> => ({
    ...queryableOver(
      observed(
        async (text, params) => {
          const client = await pool.connect();
          try {
            return await runOn(client, ms)(text, params);
          } finally {
            release(client);
          }
        },
        observe,
        active,
      ),
    ),
    transaction: async <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> => {
      const client = await pool.connect();
      const run = runOn(client, ms);
      try {
        await run('BEGIN', []);
        const result = await fn(queryableOver(observed(run, observe, active)));
        await commitInTime(client, ms);
        return result;
      } catch (err) {
        if (!abandoned.has(client)) await run('ROLLBACK', []).catch(() => undefined);
        throw err;
      } finally {
        release(client);
      }
    },
  });

  /**
   * COMMIT, in the same message as the check that it runs before the node stops waiting (one
   * simple query: if the check raises, the COMMIT in it is skipped and the transaction rolls back).
   */
  const commitInTime = async (client: pg.PoolClient, ms: number): Promise<void> => {
    const deadlineSeconds = (Date.now() + ms - Math.min(COMMIT_ANSWER_MARGIN_MS, ms / 2)) / 1000;
    try {
      // The deadline is a number this code computed, not input: written into the text because a
      // simple query (the only kind that carries two statements) takes no parameters.
      await answered(client, ms, () => client.query(`select commit_before(to_timestamp(${deadlineSeconds.toFixed(3)})); commit`));
    } catch (err) {
      // Ran past its deadline yet answered: the server was too slow to trust with the commit.
      if ((err as { code?: unknown }).code === '57014') throw Object.assign(new Error('PostgreSQL ran the commit after its deadline'), { code: 'ETIMEDOUT' });
      throw err;
    }
  };

  const lockWith = async <T>(key: number, fn: () => Promise<T>, wait: boolean): Promise<T | undefined> => {
    // Session-level advisory locks belong to one connection: hold a dedicated client.
    const client = await pool.connect();
    try {
      if (wait) {
        await runOn(client, ADVISORY_LOCK_WAIT_MS)('select pg_advisory_lock($1)', [key]);
      } else {
        const res = await runOn(client, timeoutMs)('select pg_try_advisory_lock($1) as locked', [key]);
        if (!(res.rows[0] as { locked: boolean }).locked) return undefined;
      }
      try {
        return await fn();
      } finally {
        // A connection given up has taken its session, and the lock, with it.
        if (!abandoned.has(client)) await runOn(client, timeoutMs)('select pg_advisory_unlock($1)', [key]);
      }
    } finally {
      release(client);
    }
  };

  log.info('PostgreSQL server pool open');
  const bounded = queriesWithin(timeoutMs);
  return {
    mode: 'server',
    ...bounded,
    longRunning: queriesWithin(LONG_RUNNING_MS),
    usage: () => ({ open: pool.totalCount, max: config.DATABASE_POOL_SIZE, idle: pool.idleCount, waiting: pool.waitingCount }),
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
      await bounded.rows(sql`select 1`);
    },
    close: async () => {
      await pool.end();
    },
  };
}
