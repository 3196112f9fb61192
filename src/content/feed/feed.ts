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
import { z } from 'zod';
import type { Caller } from '../../auth/index.js';
import { badRequest } from '../../shared/errors.js';
import type { ContentListingRepository, FeedRow } from '../listing-repository.js';
import type { ContentSerialiser } from '../serialise.js';
import type { Language } from '../values.js';

const FRESH_WINDOW_DAYS = 7;
const POPULAR_MIN_REACTIONS = 2;
const BUCKETS = [0, 1, 2] as const;

/** The repository's timestamp text: microsecond-precise UTC. */
const timestampText = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;

const cursorSchema = z.strictObject({
  v: z.literal(1),
  t: z.string().regex(timestampText),
  b: z.number().int().min(0).max(2),
  c: z.string().regex(timestampText),
  i: z.uuid(),
});
type FeedCursor = z.infer<typeof cursorSchema>;

function encodeCursor(cursor: FeedCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(text: string): FeedCursor {
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('not base64url');
    return cursorSchema.parse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
  } catch {
    throw badRequest('content.error.invalid_cursor', 'The cursor is not one this service issued', { field: 'cursor', constraint: 'a next_cursor value' });
  }
}

export class ContentFeed {
  constructor(
    private readonly listings: ContentListingRepository,
    private readonly serialiser: ContentSerialiser,
  ) {}

  async page(caller: Caller, perPage: number, cursorText: string | undefined, lang: Language) {
    return (await this.pageWithUploaders(caller, perPage, cursorText, lang)).answer;
  }

  /** The page, and the uploader of each of its items in order (what feed-pages.ts leaves out for a blocker). */
  async pageWithUploaders(caller: Caller, perPage: number, cursorText: string | undefined, lang: Language) {
    return (await this.pagesWithUploaders(caller, perPage, cursorText, lang, 1))[0];
  }

  /**
   * Up to `count` consecutive pages from `cursorText` (the first page when absent), read with one
   * query per bucket, each with the cursor that names it: the pages a client paging on from
   * there asks for next (feed-pages.ts keeps them). Each is the page that cursor would read
   * alone: the buckets and their keyset order continue across page boundaries.
   */
  async pagesWithUploaders(caller: Caller, perPage: number, cursorText: string | undefined, lang: Language, count: number) {
    const cursor = cursorText ? decodeCursor(cursorText) : null;
    const snapshot = cursor?.t ?? (await this.listings.feedSnapshot());
    const wanted = perPage * count;

    const rows: { row: FeedRow; bucket: number }[] = [];
    for (const bucket of BUCKETS.slice(cursor?.b ?? 0)) {
      if (rows.length > wanted) break;
      const found = await this.listings.feedBucket({
        bucket,
        userId: caller.userId,
        snapshot,
        freshWindowDays: FRESH_WINDOW_DAYS,
        popularMinReactions: POPULAR_MIN_REACTIONS,
        after: cursor && cursor.b === bucket ? { createdKey: cursor.c, id: cursor.i } : null,
        limit: wanted + 1 - rows.length,
      });
      rows.push(...found.map((row) => ({ row, bucket })));
    }

    const pages: { cursor: string | undefined; answer: { items: unknown[]; next_cursor: string | null; has_more: boolean }; uploaderIds: string[] }[] = [];
    let at = cursorText;
    for (let start = 0; pages.length < count; start += perPage) {
      const pageRows = rows.slice(start, start + perPage);
      const hasMore = rows.length > start + perPage;
      const last = pageRows[pageRows.length - 1];
      const next = hasMore && last ? encodeCursor({ v: 1, t: snapshot, b: last.bucket, c: last.row.created_key, i: last.row.id }) : null;
      pages.push({
        cursor: at,
        answer: { items: pageRows.map(({ row }) => this.serialiser.feedItem(row, lang)), next_cursor: next, has_more: hasMore },
        uploaderIds: pageRows.map(({ row }) => row.uploader_id),
      });
      if (!next) break;
      at = next;
    }
    return pages;
  }
}
