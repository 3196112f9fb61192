// `GET /all` (filtered, sorted, paged listing) and `GET /completed` (published items, optionally
// inside a map viewport): who sees which items, how search text becomes terms, where a page starts
// and what `total` says, and the answer's shape. The queries are ContentListingRepository's.
import { can, type Caller } from '../auth/caller.js';
import {
  COMPLETED_SORT,
  type ContentListingRepository,
  type ListingFilters,
  type ListingPage,
  type ListingSort,
  type ListingTotal,
  type ListingVisibility,
  type PageStart,
  type SortBoundary,
} from './listing-repository.js';
import type { ClustersQuery, CompletedQuery, ListAllQuery } from './schemas.js';
import type { Facets, IndexQuery, ListingIndex } from './listing-index.js';
import { clusterLevel, type Cluster } from './index-map.js';
import { LIMITS } from './schemas.js';
import type { ContentSerialiser } from './serialise.js';
import { ItemTexts } from './item-texts.js';
import type { JsonText } from '../shared/json-text.js';
import { ADMIN_CONTENT_PERMISSION, viewerOf } from './access.js';
import { foldForSearch, type Language } from './values.js';
import { viewportAround, type Viewport } from './viewport.js';
import type { ReadModel } from '../read-model/read-model.js';
import { ReadCache } from '../read-model/read-cache.js';

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

// ---- what this node remembers of recent listings (docs/content.md, "Pages and totals") ----

/** How far back (in pages) a remembered boundary is still used: the rest of the way is OFFSET. */
const BOUNDARY_WINDOW_PAGES = 16;
/**
 * A backstop only: every listing change, on any node, forgets everything at once (the read
 * model's onListingsChanged), but a change no node announced (a direct database write) stays
 * invisible to page positions at most this long.
 */
const REMEMBER_MS = 30_000;

/** Remembered boundaries and totals are bounded by their keys' length (what varies) plus a fixed allowance. */
const keyBytes = (_value: object, key: string): number => key.length + 100;

/** A list filter as a set: order and repeats do not change what matches. */
const asSet = (values: string[] | undefined, fold: (v: string) => string = (v) => v) =>
  values?.length ? [...new Set(values.map(fold))].sort() : null;

function visibilityKey(v: ListingVisibility): string {
  return v.kind === 'published-or-own' ? `own:${v.userId}` : v.kind;
}

/** The `/all` matches a query selects, normalised: equal keys, equal matches. */
function allMatchKey(visibility: ListingVisibility, terms: string[], f: ListingFilters): string {
  return JSON.stringify([
    'all', visibilityKey(visibility), [...terms].sort(), f.lang ?? null,
    f.price_from ?? null, f.price_to ?? null, f.area_from ?? null, f.area_to ?? null, f.unit_price ?? null, f.unit_area ?? null,
    asSet(f.amenities), asSet(f.apartment_type, (v) => v.toLowerCase()), asSet(f.project_status, (v) => v.toLowerCase()),
    f.created_at_start_date?.toISOString() ?? null, f.created_at_end_date?.toISOString() ?? null,
  ]);
}

function completedMatchKey(terms: string[], viewport: Viewport | null): string {
  return JSON.stringify(['completed', [...terms].sort(), viewport && [viewport.south, viewport.north, viewport.west, viewport.east]]);
}

/** A listing's answer (its items serialised already) and the uploader of each item, in order. */
export interface ListingAnswer<A> {
  answer: A;
  uploaderIds: string[];
}

/** One listing request, whichever endpoint: its matches (key), order and page. */
interface PageRequest {
  matchKey: string;
  sort: ListingSort;
  perPage: number;
  page: number;
}

export class ContentListings {
  /**
   * The (sort value, id) of the last row of recent pages, by query, order, page size and page,
   * and the totals of recent queries (they do not depend on order or page). ReadCaches: a value
   * read while a change passed is not kept, and nothing is used while this node could miss
   * another's change.
   */
  private readonly boundaries: ReadCache<string, SortBoundary>;
  private readonly totals: ReadCache<string, ListingTotal>;
  private readonly texts: ItemTexts;

  constructor(
    private readonly listings: ContentListingRepository,
    serialiser: ContentSerialiser,
    readModel: ReadModel,
    private readonly index: ListingIndex,
  ) {
    this.texts = new ItemTexts(serialiser, readModel.itemTexts);
    this.boundaries = new ReadCache<string, SortBoundary>('page-boundaries', { max: 40_000, ttlMs: REMEMBER_MS, maxBytes: 5_000_000, bytesOf: keyBytes }, readModel.trusted);
    this.totals = new ReadCache<string, ListingTotal>('listing-totals', { max: 20_000, ttlMs: REMEMBER_MS, maxBytes: 2_000_000, bytesOf: keyBytes }, readModel.trusted);
    // Anything that adds, removes, re-states, edits or reacts to an item, on any node, may move
    // every page boundary and total; forgetting all is simple and cheap (the next pages read with
    // OFFSET once).
    readModel.onListingsChanged(() => this.forgetAll());
  }

  /** Forgets every remembered page boundary and total (the listed items may have changed). */
  forgetAll(): void {
    this.boundaries.clear();
    this.totals.clear();
  }

  /** Whether listings are answered from the listing index now (it can leave a caller's blocked uploaders out of pages and totals). */
  fromIndex(): boolean {
    return this.index.ready();
  }

  /**
   * `hidden`: uploaders left out (a caller's blocks, CONTRACT §21), from the pages, `total` and
   * facets alike when the index answers; PostgreSQL's answers leave them to the caller.
   */
  async listAll(caller: Caller | null, q: ListAllQuery, hidden?: ReadonlySet<string>): Promise<ListingAnswer<{ item: JsonText[]; hasMore: boolean; total: number; facets?: Facets }>> {
    const visibility = visibilityFor(caller);
    const viewer = viewerOf(caller);
    const direction = q.sort === 'asc' ? 'asc' : 'desc';
    // Relevance needs a search; without one it is the default order (newest first).
    const column = q.column === 'relevance' && !q.search?.trim() ? 'created_at' : q.column;
    if (this.index.ready()) {
      const query: IndexQuery = { visibility, search: q.search, filters: q, hidden };
      const found = this.index.page(query, { column, direction }, q.page, q.per_page);
      return {
        answer: {
          item: found.rows.map((r) => this.texts.listingItem(r, viewer, q.lang, true)),
          hasMore: found.hasMore,
          total: found.total,
          ...(q.facets?.length ? { facets: this.index.facets(query, q.facets) } : {}),
        },
        uploaderIds: found.rows.map((r) => r.uploader_id),
      };
    }
    // PostgreSQL: the search is a substring match of every term, and relevance the newest first.
    const terms = searchTerms(q.search);
    const sort: ListingSort = { column: column === 'relevance' ? 'created_at' : column, direction };
    const request: PageRequest = { matchKey: allMatchKey(visibility, terms, q), sort, perPage: q.per_page, page: q.page };
    const { page, total } = await this.pageAndTotal(
      request,
      (start) => this.listings.filteredPage(visibility, terms, q, request.sort, q.per_page, start),
      () => this.listings.filteredTotal(visibility, terms, q),
    );
    return {
      answer: {
        item: page.rows.map((r) => this.texts.listingItem(r, viewer, q.lang, false)),
        hasMore: page.hasMore,
        total,
        ...(q.facets?.length ? { facets: await this.listings.facetCounts(visibility, terms, q, q.facets) } : {}),
      },
      uploaderIds: page.rows.map((r) => r.uploader_id),
    };
  }

  /**
   * Map clusters of the published items in a box (CONTRACT §23), with `/all`'s search and
   * filters, leaving out the uploaders in `hidden` (the caller's blocks).
   */
  async clusters(q: ClustersQuery, hidden: ReadonlySet<string>): Promise<{ clusters: Cluster[]; total: number }> {
    const box = { minLat: q.min_lat, maxLat: q.max_lat, minLng: q.min_lng, maxLng: q.max_lng, zoom: q.zoom };
    if (this.index.ready()) return this.index.clusters({ visibility: { kind: 'published' }, search: q.search, filters: q }, box, hidden);
    return this.listings.clusterCells(searchTerms(q.search), q, box, clusterLevel(box), [...hidden]);
  }

  /** Published items, newest first, optionally inside the map viewport around latitude/longitude at zoom_level. */
  async listCompleted(caller: Caller | null, q: CompletedQuery, lang: Language, hidden?: ReadonlySet<string>): Promise<ListingAnswer<{ items: JsonText[]; total: number; page: number; per_page: number; total_pages: number }>> {
    const viewport = q.latitude !== undefined && q.longitude !== undefined ? viewportAround(q.latitude, q.longitude, q.zoom_level) : null;
    const viewer = viewerOf(caller);
    if (this.index.ready()) {
      const found = this.index.page({ visibility: { kind: 'published' }, search: q.search, filters: {}, viewport, hidden }, COMPLETED_SORT, q.page, q.per_page);
      return {
        answer: {
          items: found.rows.map((r) => this.texts.completedItem(r, viewer, lang, true)),
          total: found.total,
          page: q.page,
          per_page: q.per_page,
          total_pages: Math.ceil(found.total / q.per_page),
        },
        uploaderIds: found.rows.map((r) => r.uploader_id),
      };
    }
    const terms = searchTerms(q.search);
    const request: PageRequest = { matchKey: completedMatchKey(terms, viewport), sort: COMPLETED_SORT, perPage: q.per_page, page: q.page };
    const { page, total } = await this.pageAndTotal(
      request,
      (start) => this.listings.publishedPage(terms, viewport, q.per_page, start),
      () => this.listings.publishedTotal(terms, viewport),
    );
    return {
      answer: {
        items: page.rows.map((r) => this.texts.completedItem(r, viewer, lang, false)),
        total,
        page: q.page,
        per_page: q.per_page,
        total_pages: Math.ceil(total / q.per_page),
      },
      uploaderIds: page.rows.map((r) => r.uploader_id),
    };
  }

  /**
   * Reads the page, seeking past the nearest remembered boundary of an earlier page of the same
   * query (the rest by OFFSET, all of it when none is remembered), and works out `total`:
   * - a page that ends the listing tells it exactly (the rows before it plus its own);
   * - otherwise the remembered total, or one read now (exact up to COUNT_CAP, else an estimate),
   *   kept within what the page shows: no less than the rows up to its end (and the next one),
   *   no more than its offset when it is empty.
   */
  private async pageAndTotal(
    request: PageRequest,
    readPage: (start: PageStart) => Promise<ListingPage>,
    readTotal: () => Promise<ListingTotal>,
  ): Promise<{ page: ListingPage; total: number }> {
    const boundaries = this.boundaries;
    const boundaryGeneration = boundaries.epoch();
    const totalGeneration = this.totals.epoch();
    const orderKey = `${request.matchKey}|${request.sort.column}|${request.sort.direction}|${request.perPage}|`;
    const offset = (request.page - 1) * request.perPage;

    let start: PageStart = { after: null, offset };
    for (let earlier = request.page - 1; earlier >= Math.max(1, request.page - BOUNDARY_WINDOW_PAGES); earlier--) {
      const after = boundaries.get(orderKey + earlier);
      if (after) {
        start = { after, offset: (request.page - 1 - earlier) * request.perPage };
        break;
      }
    }
    const page = await readPage(start);
    if (page.last) boundaries.set(orderKey + request.page, page.last, boundaryGeneration);

    const seen = offset + page.rows.length;
    if (!page.hasMore && (page.rows.length > 0 || offset === 0)) {
      this.totals.set(request.matchKey, { count: seen, exact: true }, totalGeneration);
      return { page, total: seen };
    }
    let total = this.totals.get(request.matchKey);
    if (!total) {
      total = await readTotal();
      this.totals.set(request.matchKey, total, totalGeneration);
    }
    // An empty page past the end says there are at most `offset` matches; any other page that
    // there are at least the rows up to its end, and one more when hasMore.
    if (page.rows.length === 0) return { page, total: Math.min(total.count, offset) };
    return { page, total: Math.max(total.count, seen + (page.hasMore ? 1 : 0)) };
  }
}
