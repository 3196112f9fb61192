// Small pieces of drizzle `sql` templates that several repositories build the same way.
import { sql, type SQL } from 'drizzle-orm';

/** The values as comma-separated bound parameters, for `in (...)`; an empty list is the caller's to refuse. */
export const sqlList = (values: readonly unknown[]): SQL => sql.join(values.map((v) => sql`${v}`), sql`, `);

/** A value stored in a jsonb column: sent as its JSON text and cast, so drivers need no json type mapping. */
export const jsonb = (value: unknown): SQL => sql`${JSON.stringify(value)}::jsonb`;

/**
 * `and <column> not in (...)`, or nothing for an empty list: leaves out the rows of the users a
 * viewer blocked (CONTRACT §21; a user blocks at most MAX_BLOCKS_PER_USER, so the list is bounded).
 */
export const andNotAmong = (column: SQL, ids: readonly string[]): SQL => (ids.length ? sql`and ${column} not in (${sqlList(ids)})` : sql``);
