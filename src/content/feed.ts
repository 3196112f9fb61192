// The personal feed (`GET /feeds`): published items ranked in three buckets, each newest first:
//   0. items by uploaders the caller follows;
//   1. fresh and popular items: created within FRESH_WINDOW_DAYS before the snapshot and with
//      at least POPULAR_MIN_REACTIONS reactions;
//   2. every other item.
// The caller's own items are left out.
//
// Pagination is keyset over (bucket, created_at desc, id desc) within a snapshot: the first page
// fixes a snapshot time T (the database clock) and every later page sees only items created,
// follows made and reactions given at or before T. So items, follows and likes that arrive while
// a client pages neither repeat nor push out anything. (What can still move an item is a removal
// before T: an unfollow or an unlike made before T and withdrawn during paging.) The cursor is the
// base64url JSON of {v, t: T, b: bucket, c: created_at with microseconds, i: id} of the last item.
import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { Caller } from '../auth/caller.js';
import { badRequest } from '../shared/errors.js';
import { CONTENT_COLUMNS } from './repository.js';
import type { ContentRow } from './serialise.js';
import type { ContentService } from './service.js';
import type { Language } from './values.js';

export const FRESH_WINDOW_DAYS = 7;
export const POPULAR_MIN_REACTIONS = 2;

/** Microsecond-precise UTC timestamp text, as PostgreSQL writes and reads it back exactly. */
const TIMESTAMP_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.US';
const timestampText = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;

const cursorSchema = z.strictObject({
  v: z.literal(1),
  t: z.string().regex(timestampText),
  b: z.number().int().min(0).max(2),
  c: z.string().regex(timestampText),
  i: z.uuid(),
});
type FeedCursor = z.infer<typeof cursorSchema>;

export function encodeCursor(cursor: FeedCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

export function decodeCursor(text: string): FeedCursor {
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('not base64url');
    return cursorSchema.parse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
  } catch {
    throw badRequest('content.error.invalid_cursor', 'The cursor is not one this service issued', { field: 'cursor', constraint: 'a next_cursor value' });
  }
}

type FeedRow = ContentRow & { created_key: string };

export class ContentFeed {
  constructor(
    private readonly app: AppContext,
    private readonly content: ContentService,
  ) {}

  async page(caller: Caller, perPage: number, cursorText: string | undefined, lang: Language) {
    const cursor = cursorText ? decodeCursor(cursorText) : null;
    const snapshot =
      cursor?.t ??
      (await this.app.database.rows<{ t: string }>(sql`select to_char(now() at time zone 'UTC', ${TIMESTAMP_FORMAT}) as t`))[0].t;
    const at = sql`(${snapshot}::timestamp at time zone 'UTC')`;
    const followed = sql`c.uploader_id in (select f.following_id from follows f where f.follower_id = ${caller.userId} and f.created_at <= ${at})`;
    const popular = sql`(c.created_at > ${at} - ${`${FRESH_WINDOW_DAYS} days`}::interval
      and (select count(*) from content_reactions r where r.content_id = c.id and r.created_at <= ${at}) >= ${POPULAR_MIN_REACTIONS})`;
    const buckets: SQL[] = [followed, sql`not ${followed} and ${popular}`, sql`not ${followed} and not ${popular}`];

    const rows: { row: FeedRow; bucket: number }[] = [];
    for (let bucket = cursor?.b ?? 0; bucket < buckets.length && rows.length <= perPage; bucket++) {
      const conditions: SQL[] = [
        sql`c.deleted_at is null`,
        sql`c.status = 'completed'`,
        sql`c.created_at <= ${at}`,
        sql`c.uploader_id <> ${caller.userId}`,
        buckets[bucket],
      ];
      if (cursor && cursor.b === bucket) {
        conditions.push(sql`(c.created_at, c.id) < ((${cursor.c}::timestamp at time zone 'UTC'), ${cursor.i}::uuid)`);
      }
      const found = await this.app.database.rows<FeedRow>(sql`
        select ${CONTENT_COLUMNS}, to_char(c.created_at at time zone 'UTC', ${TIMESTAMP_FORMAT}) as created_key
        from contents c join users u on u.id = c.uploader_id
        where ${sql.join(conditions, sql` and `)}
        order by c.created_at desc, c.id desc
        limit ${perPage + 1 - rows.length}`);
      rows.push(...found.map((row) => ({ row, bucket })));
    }

    const hasMore = rows.length > perPage;
    const pageRows = rows.slice(0, perPage);
    const last = pageRows[pageRows.length - 1];
    return {
      items: pageRows.map(({ row }) => this.content.serialiser.feedItem(row, lang)),
      next_cursor: hasMore && last ? encodeCursor({ v: 1, t: snapshot, b: last.bucket, c: last.row.created_key, i: last.row.id }) : null,
      has_more: hasMore,
    };
  }
}
