// Embedded mode (DATABASE_URL unset): PGlite in DATA_DIR/pgdata, guarded by a lock file, on the
// thread PGLITE_THREAD names:
// - `worker` (default): a database thread (pglite-thread.ts ↔ pglite-worker.mjs). PGlite runs
//   each statement as WebAssembly, synchronously; on its own thread a slow listing does not
//   stall every socket of the node (bench/loop-delay.ts measures it);
// - `main`: PGlite on the event loop itself (no copy of rows between threads; the loop is busy
//   for as long as each statement runs).
// Either way the handle is the same: PGlite's one connection queues the statements, a query
// outside an open transaction waits for it to end, and rows are parsed by PGlite's own parsers
// (timestamptz and date as Date, int8 as number, numeric as string, json as values), which
// survive the copy between threads unchanged.
import path from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../shared/logger.js';
import type { DatabaseHandle, EmbeddedEngine, QueryObserver } from './handle.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import { openPglite, type PgliteOptions } from './pglite-open.mjs';
import { PgliteThread } from './pglite-thread.js';
import { observed, queryableOver } from './queryable.js';

/** PGlite on the calling thread. */
async function mainThreadEngine(options: PgliteOptions): Promise<EmbeddedEngine> {
  const client = await openPglite(options);
  return {
    query: (text, params) => client.query(text, params),
    transaction: (fn) => client.transaction((tx) => fn((text, params) => tx.query(text, params))),
    exec: async (script) => {
      try {
        await client.exec(script);
      } catch (err) {
        await client.exec('ROLLBACK').catch(() => undefined);
        throw err;
      }
    },
    close: async () => {
      await client.query('CHECKPOINT');
      await client.close();
    },
  };
}

export async function openEmbedded(config: Config, log: Logger, observe?: QueryObserver): Promise<DatabaseHandle> {
  const releaseLock = acquireDataDirLock(config.dataDir);
  try {
    const options: PgliteOptions = { pgdata: path.join(config.dataDir, 'pgdata'), sharedBuffers: config.PGLITE_SHARED_BUFFERS };
    const engine = config.PGLITE_THREAD === 'worker' ? await PgliteThread.start(options, log) : await mainThreadEngine(options);
    log.info({ dataDir: config.dataDir, thread: config.PGLITE_THREAD }, 'embedded PostgreSQL (PGlite) open');
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
    let closed = false;
    const queries: Pick<DatabaseHandle, 'rows' | 'transaction'> = {
      ...queryableOver(observed(engine.query, observe, active)),
      transaction: (fn) => engine.transaction((query) => fn(queryableOver(observed(query, observe, active)))),
    };
    const handle: DatabaseHandle = {
      mode: 'embedded',
      ...queries,
      // One process owns the database and nothing here times a statement out.
      longRunning: queries,
      usage: () => ({ open: 1, max: 1, idle: active.count === 0 ? 1 : 0, waiting: Math.max(0, active.count - 1) }),
      withAdvisoryLock: async (key, fn) => {
        for (;;) {
          const result = await tryWithAdvisoryLock(key, async () => ({ value: await fn() }));
          if (result) return result.value;
          await new Promise((r) => setTimeout(r, 20));
        }
      },
      tryWithAdvisoryLock,
      execScript: (script) => engine.exec(script),
      ping: async () => {
        await engine.query('select 1', []);
      },
      close: async () => {
        if (closed) return;
        closed = true;
        try {
          await engine.close();
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
