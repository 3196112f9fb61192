// Saved searches (CONTRACT §16): create (at most MAX_SAVED_SEARCHES per user), list, delete, and
// the page of published items that match one. Only the owner sees or touches a search: another
// user's id answers the 404 of a search that does not exist.
import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { BlockService } from '../blocks/index.js';
import type { Caller } from '../auth/index.js';
import { badRequest, conflict, notFound } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { matchable } from './matchable.js';
import type { SavedSearchRepository, SavedSearchRow } from './saved-search-repository.js';
import { viewerOf, type ContentListingRepository, type ContentSerialiser } from '../content/index.js';
import { MAX_SAVED_SEARCHES, type CreateSavedSearchInput, type MatchesQuery, type SavedSearchView } from './schemas.js';

const timestampText = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;
const cursorSchema = z.strictObject({ c: z.string().regex(timestampText), i: z.uuid() });
type MatchesCursor = z.infer<typeof cursorSchema>;

const encodeCursor = (cursor: MatchesCursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

function decodeCursor(text: string): MatchesCursor {
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('not base64url');
    return cursorSchema.parse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
  } catch {
    throw badRequest('saved_search.error.invalid_cursor', 'The cursor is not one this service issued', { field: 'cursor', constraint: 'a next_cursor value' });
  }
}

const searchNotFound = () => notFound('saved_search.error.not_found', 'Saved search not found', { field: 'id', constraint: 'one of your saved searches' });

function view(row: SavedSearchRow): SavedSearchView {
  return { id: row.id, name: row.name, filters: row.filters, notify: row.notify, created_at: row.created_at.toISOString() };
}

export class SavedSearchService {
  constructor(
    private readonly app: AppContext,
    private readonly searches: SavedSearchRepository,
    private readonly listings: ContentListingRepository,
    private readonly serialiser: ContentSerialiser,
    private readonly blocks: BlockService,
  ) {}

  /** 409 `saved_search.error.limit_reached` when the caller already keeps MAX_SAVED_SEARCHES. */
  async create(caller: Caller, input: CreateSavedSearchInput): Promise<SavedSearchView> {
    const row = await this.app.database.transaction(async (tx) => {
      const searches = this.searches.in(tx);
      // Two creations at once must not both pass the count.
      await searches.lockUser(caller.userId);
      if ((await searches.countFor(caller.userId)) >= MAX_SAVED_SEARCHES) {
        throw conflict('saved_search.error.limit_reached', `At most ${MAX_SAVED_SEARCHES} saved searches per user; delete one first`);
      }
      return searches.insert({
        id: newId(),
        userId: caller.userId,
        name: input.name,
        filters: input.filters,
        notify: input.notify,
        matchable: matchable(input.filters),
      });
    });
    return view(row);
  }

  async list(caller: Caller): Promise<{ items: SavedSearchView[] }> {
    return { items: (await this.searches.listFor(caller.userId)).map(view) };
  }

  async remove(caller: Caller, id: string): Promise<void> {
    if (!(await this.searches.deleteOwn(id, caller.userId))) throw searchNotFound();
  }

  /** Published items matching the search, newest first, in cursor pages of `GET /all` items. */
  async matches(caller: Caller, id: string, query: MatchesQuery) {
    const after = query.cursor ? decodeCursor(query.cursor) : null;
    const search = await this.searches.findOwn(id, caller.userId);
    if (!search) throw searchNotFound();
    const { searchTerms, viewport } = matchable(search.filters);
    const rows = await this.listings.publishedMatching(
      { searchTerms, filters: search.filters, viewport },
      after ? { createdKey: after.c, id: after.i } : null,
      query.per_page + 1,
      [...(await this.blocks.hiddenFrom(caller.userId))],
    );
    const hasMore = rows.length > query.per_page;
    const page = rows.slice(0, query.per_page);
    const last = page[page.length - 1];
    const viewer = viewerOf(caller);
    return {
      items: page.map((row) => this.serialiser.listingItem(row, viewer)),
      next_cursor: hasMore && last ? encodeCursor({ c: last.created_key, i: last.id }) : null,
      has_more: hasMore,
    };
  }
}
