// `GET /all` (filtered, sorted, paged listing) and `GET /completed` (published items, optionally
// inside a map viewport): who sees which items, how search text becomes terms, and the answer's
// shape. The queries are ContentListingRepository's.
import type { AppContext } from '../context.js';
import { can, type Caller } from '../auth/caller.js';
import { ContentListingRepository, type ListingVisibility } from './listing-repository.js';
import type { CompletedQuery, ListAllQuery } from './schemas.js';
import { LIMITS } from './schemas.js';
import type { ContentSerialiser } from './serialise.js';
import { ADMIN_CONTENT_PERMISSION, viewerOf } from './service.js';
import { foldForSearch, type Language } from './values.js';
import { viewportAround } from './viewport.js';

/**
 * The search text as terms, each of which must match: folded, so `can ho` finds `Căn hộ`, split on
 * whitespace, so word order does not matter, without repeats and at most LIMITS.searchTerms.
 */
export function searchTerms(search: string | undefined): string[] {
  if (!search) return [];
  return [...new Set(foldForSearch(search).split(' ').filter(Boolean))].slice(0, LIMITS.searchTerms);
}

/**
 * Everyone sees completed items; a signed-in caller also sees their own items in any state;
 * holders of `update:any_content` see every live item.
 */
function visibilityFor(caller: Caller | null): ListingVisibility {
  if (!caller) return { kind: 'published' };
  if (can(caller, ADMIN_CONTENT_PERMISSION)) return { kind: 'every' };
  return { kind: 'published-or-own', userId: caller.userId };
}

export class ContentListings {
  private readonly listings: ContentListingRepository;

  constructor(
    app: AppContext,
    private readonly serialiser: ContentSerialiser,
  ) {
    this.listings = new ContentListingRepository(app.database);
  }

  async listAll(caller: Caller | null, q: ListAllQuery) {
    const offset = (q.page - 1) * q.per_page;
    const { rows, total, hasMore } = await this.listings.filteredPage(
      visibilityFor(caller),
      searchTerms(q.search),
      q,
      { column: q.column, direction: q.sort === 'asc' ? 'asc' : 'desc' },
      q.per_page,
      offset,
    );
    const viewer = viewerOf(caller);
    return {
      item: rows.map((r) => this.serialiser.listingItem(r, viewer, q.lang)),
      hasMore,
      total,
    };
  }

  /** Published items, newest first, optionally inside the map viewport around latitude/longitude at zoom_level. */
  async listCompleted(caller: Caller | null, q: CompletedQuery, lang: Language) {
    const viewport = q.latitude !== undefined && q.longitude !== undefined ? viewportAround(q.latitude, q.longitude, q.zoom_level) : null;
    const offset = (q.page - 1) * q.per_page;
    const { rows, total } = await this.listings.publishedPage(searchTerms(q.search), viewport, q.per_page, offset);
    const viewer = viewerOf(caller);
    return {
      items: rows.map((r) => this.serialiser.completedItem(r, viewer, lang)),
      total,
      page: q.page,
      per_page: q.per_page,
      total_pages: Math.ceil(total / q.per_page),
    };
  }
}
