// The step from a driver call to what repositories use: drizzle `sql` templates compiled to text
// and bound parameters, sent through one (text, params) → {rows} function, and timed for the
// query observer on the calling thread (the main thread in every mode, so the metrics measure
// what a request waits for, queueing included).
import { PgDialect } from 'drizzle-orm/pg-core';
import type { SQL } from 'drizzle-orm';
import type { Queryable, QueryObserver, Run } from './handle.js';

const dialect = new PgDialect();

/** A Queryable over any driver call that takes (text, params) and answers {rows}. */
export function queryableOver(run: Run): Queryable {
  return {
    rows: async <T>(query: SQL) => {
      const compiled = dialect.sqlToQuery(query);
      return (await run(compiled.sql, compiled.params)).rows as T[];
    },
  };
}

/** `run`, timed for the observer, counting the queries under way. */
export function observed(run: Run, observe: QueryObserver | undefined, active: { count: number }): Run {
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
