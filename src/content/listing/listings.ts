// The one listing path (docs/search.md, "One /all request"): `GET /all`, `GET /completed` and
// `GET /completed/clusters` are answered by the listing index and nothing else. Per request:
// the caller's blocked uploaders are read (the block rule, here only: they are left out of the
// index's query, so pages stay full and `total` and facets leave them out too); a caller without
// blocks reads the first pages through the read model's page cache, shared by every caller who
// sees the same items; the index (once per request, one loaded copy) gives the rows, and each row
// is serialised once per variant (item-texts.ts).
import { can, type Caller } from '../../auth/index.js';
import { JsonText } from '../../shared/json-text.js';
import type { ReadModel } from '../../read-model/index.js';
import type { BlockService } from '../../blocks/index.js';
import type { ListingIndex } from '../search-index/listing-index.js';
import type { IndexQuery, IndexSort, ListingVisibility } from '../search-index/index-types.js';
import { viewportAround } from '../search-index/viewport.js';
import type { ClustersQuery, CompletedQuery, ListAllQuery } from '../schemas.js';
import type { ContentSerialiser } from '../serialise.js';
import { ADMIN_CONTENT_PERMISSION, viewerOf } from '../access.js';
import type { Language } from '../values.js';
import { ItemTexts } from './item-texts.js';
import type { BrowsedPoint, FirstPageSlot, SlotViewer } from './first-page-slot.js';

/** Pages up to this number are kept: the ones nearly every client reads. */
const CACHED_PAGES = 3;

/** `/completed`: the newest first. */
const COMPLETED_SORT: IndexSort = { column: 'created_at', direction: 'desc' };

/**
 * Everyone sees completed items; a signed-in caller also sees their own items in any state;
 * holders of `update:any_content` see every live item.
 */
function visibilityFor(caller: Caller | null): ListingVisibility {
  if (!caller) return { kind: 'published' };
  if (can(caller, ADMIN_CONTENT_PERMISSION)) return { kind: 'every' };
  return { kind: 'published-or-own', userId: caller.userId };
}

export class Listings {
  private readonly texts: ItemTexts;

  constructor(
    private readonly index: ListingIndex,
    serialiser: ContentSerialiser,
    // Not its item cache: whose rows are content's.
    private readonly readModel: Omit<ReadModel, 'items'>,
    private readonly blocks: BlockService,
    private readonly slot: FirstPageSlot | null = null,
  ) {
    this.texts = new ItemTexts(serialiser, readModel.itemTexts);
  }

  /** `viewer`: who asks, for the sponsored slot of the first page (CONTRACT §26). */
  async listAll(caller: Caller | null, q: ListAllQuery, viewer?: SlotViewer): Promise<JsonText> {
    // The centre only picks the sponsored item: never the page, nor its cache key.
    const page = await this.listAllPage(caller, { ...q, latitude: undefined, longitude: undefined });
    if (q.page !== 1 || !viewer || !this.slot) return page;
    return this.slot.fill(page, { viewer, at: pointOf(q), listing: 'all', itemsKey: 'item', canReadContact: viewerOf(caller).canReadContact, lang: q.lang });
  }

  private async listAllPage(caller: Caller | null, q: ListAllQuery): Promise<JsonText> {
    const hidden = await this.hiddenFrom(caller);
    const read = async () => {
      const view = await this.index.view();
      const viewer = viewerOf(caller);
      // Relevance needs a search; without one it is the default order (newest first).
      const column = q.column === 'relevance' && !q.search?.trim() ? 'created_at' : q.column;
      const query: IndexQuery = { visibility: visibilityFor(caller), search: q.search, filters: q, hidden };
      const found = view.page(query, { column, direction: q.sort === 'asc' ? 'asc' : 'desc' }, q.page, q.per_page);
      return JsonText.object({
        item: found.items.map((r) => this.texts.listingItem(r, viewer, q.lang)),
        hasMore: found.hasMore,
        total: found.total,
        ...(q.facets?.length ? { facets: view.facets(query, q.facets) } : {}),
      });
    };
    if (hidden.size || q.page > CACHED_PAGES) return read();
    // Who sees what: everyone the published items, a user also their own, an administrator every
    // live item; and only `read:contact` holders see phone numbers.
    const audience = !caller ? 'anyone' : can(caller, ADMIN_CONTENT_PERMISSION) ? 'every' : `user:${caller.userId}`;
    return this.cached(`all|${audience}|${viewerOf(caller).canReadContact}|${JSON.stringify(q)}`, 'item', read);
  }

  /** Published items, newest first, optionally inside the map viewport around latitude/longitude at zoom_level. */
  async listCompleted(caller: Caller | null, q: CompletedQuery, lang: Language, viewer?: SlotViewer): Promise<JsonText> {
    // The viewport's centre is the area the viewer browses (the sponsored slot's targeting).
    const at = pointOf(q);
    if (viewer && at) this.slot?.rememberArea(viewer, at);
    const hidden = await this.hiddenFrom(caller);
    const read = async () => {
      const view = await this.index.view();
      const viewer = viewerOf(caller);
      const viewport = q.latitude !== undefined && q.longitude !== undefined ? viewportAround(q.latitude, q.longitude, q.zoom_level) : null;
      const found = view.page({ visibility: { kind: 'published' }, search: q.search, filters: {}, viewport, hidden }, COMPLETED_SORT, q.page, q.per_page);
      return JsonText.object({
        items: found.items.map((r) => this.texts.completedItem(r, viewer, lang)),
        total: found.total,
        page: q.page,
        per_page: q.per_page,
        total_pages: Math.ceil(found.total / q.per_page),
      });
    };
    if (hidden.size || q.page > CACHED_PAGES) return read();
    return this.cached(`completed|${viewerOf(caller).canReadContact}|${lang}|${JSON.stringify(q)}`, 'items', read);
  }

  /** Map clusters (CONTRACT §23): never cached (every pan is a new box). */
  async clusters(caller: Caller | null, q: ClustersQuery): Promise<{ clusters: unknown[]; total: number }> {
    const hidden = await this.hiddenFrom(caller);
    const view = await this.index.view();
    const box = { minLat: q.min_lat, maxLat: q.max_lat, minLng: q.min_lng, maxLng: q.max_lng, zoom: q.zoom };
    return view.clusters({ visibility: { kind: 'published' }, search: q.search, filters: q }, box, hidden);
  }

  /** The block rule of listings (CONTRACT §21): the uploaders the caller blocked. */
  private hiddenFrom(caller: Caller | null): Promise<ReadonlySet<string>> {
    return this.blocks.hiddenFrom(caller?.userId);
  }

  /** A first page from the page cache, shared by the callers of its key (none of whom hides anyone). */
  private async cached(key: string, itemsKey: string, read: () => Promise<JsonText>): Promise<JsonText> {
    const pages = this.readModel.pages;
    const kept = pages.get(key);
    if (kept) return kept.answer;
    const epoch = pages.epoch();
    const answer = await read();
    // No uploaders kept: a listing page is never filtered after the cache (a caller with blocks skips it).
    pages.set(key, { answer, itemsKey, uploaderIds: [] }, epoch);
    return answer;
  }
}

/** The centre a request names, when it names one. */
function pointOf(q: { latitude?: number; longitude?: number }): BrowsedPoint | undefined {
  return q.latitude !== undefined && q.longitude !== undefined ? { latitude: q.latitude, longitude: q.longitude } : undefined;
}
