// Raw SQL inside a transaction: both drivers answer `execute` with `{rows}`.
import type { SQL } from 'drizzle-orm';
import type { Executor } from '../db/client.js';

export type SqlExecutor = Pick<Executor, 'execute'>;

export async function rowsOf<T>(executor: SqlExecutor, query: SQL): Promise<T[]> {
  return ((await executor.execute(query)) as unknown as { rows: T[] }).rows;
}

/** bigint columns arrive as number (node-postgres, parser set), bigint or string (PGlite): amounts fit in 2^53. */
export function toAmount(value: unknown): number {
  if (value === null || value === undefined) return 0;
  const n = typeof value === 'bigint' ? Number(value) : Number(value);
  if (!Number.isSafeInteger(n)) throw new Error('amount outside the safe integer range');
  return n;
}

/** Timestamps arrive as Date from both drivers (a string from some JSON paths). */
export function toIso(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(String(value))).toISOString();
}
