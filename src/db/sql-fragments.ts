// Small pieces of drizzle `sql` templates that several repositories build the same way.
import { sql, type SQL } from 'drizzle-orm';

/** The values as comma-separated bound parameters, for `in (...)`; an empty list is the caller's to refuse. */
export const sqlList = (values: readonly unknown[]): SQL =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  );

/** A value stored in a jsonb column: sent as its JSON text and cast, so drivers need no json type mapping. */
export const jsonb = (value: unknown): SQL => sql`${JSON.stringify(value)}::jsonb`;

/**
 * `and <column> not in (...)`, or nothing for an empty list: leaves out the rows of the users a
 * viewer blocked (CONTRACT §21; a user blocks at most MAX_BLOCKS_PER_USER, so the list is bounded).
 */
export const andNotAmong = (column: SQL, ids: readonly string[]): SQL => (ids.length ? sql`and ${column} not in (${sqlList(ids)})` : sql``);

/**
 * A text[] parameter (drizzle would expand a JS array into a list of parameters), sent as one
 * bound array literal (`{"a","b\"c"}`: every element quoted, `"` and `\` backslash-escaped).
 * It must be a value the planner can see: written as `array(select … from jsonb…)` it was a
 * sub-select whose result the planner does not know, so `amenities @> …` was estimated at the
 * default 0.5 % of rows whatever the value, and a common amenity (`pool`, 30 % of items) sent the
 * `/all` page through the amenities GIN bitmap and a sort of every match (docs/content.md).
 */
const arrayLiteral = (values: string[]): string => `{${values.map((v) => `"${v.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`).join(',')}}`;
export const textArray = (values: string[]): SQL => sql`${arrayLiteral(values)}::text[]`;
