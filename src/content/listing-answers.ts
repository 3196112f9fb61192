// The listing answers as clients ask for them most: the first pages of `GET /all`, `GET /completed`
// and every page of the caller's `GET /feeds`, serialised once and kept in the read model's page
// cache until an event that could change them (a new, changed or deleted item, a reaction, a
// comment, a follow, a user's new name: src/read-model/read-model.ts) clears it. A feed page after
// the first is named by its cursor, which fixes the feed's snapshot time: the same cursor lists
// the same items until one of those events, so it is kept like the first page (several devices
// and clients of one user page through the same cursors while the first page is cached); and a
// page after the first read from the database brings the next two with it, for a client that
// scrolls on.
// Deeper pages of `/all` and `/completed` go to the database (or the listing index) every time.
//
// Blocks (CONTRACT §21): a cached page is shared by every caller of its key, so the items of the
// users a caller blocked are left out after the cache, per caller: each page is kept with the
// uploader of each item, and for a caller with blocks (their list from the read model's block
// cache) the items of blocked uploaders are dropped from the answer. Such a page is shorter than
// `per_page` (no over-fetch: page numbers and cursors stay those of everyone's pages); `total`
// still counts them. Deeper pages are filtered the same way. docs/moderation.md, "Blocks".
// While the listing index answers, `/all` and `/completed` for a caller with blocks skip the cache
// instead: the index leaves the blocked uploaders out of the pages, `total` and facets (full pages).
import { can, type Caller } from '../auth/caller.js';
import { JsonText } from '../shared/json-text.js';
import type { ReadCache } from '../read-model/read-cache.js';
import type { CachedPage } from '../read-model/read-model.js';
import type { BlockService } from '../blocks/service.js';
import type { ContentFeed } from './feed.js';
import type { ContentListings } from './listings.js';
import type { ClustersQuery, CompletedQuery, ListAllQuery } from './schemas.js';
import { ADMIN_CONTENT_PERMISSION, viewerOf } from './access.js';
import type { Language } from './values.js';
import type { SlotRequest, SlotViewer, SponsoredSlot } from '../campaigns/sponsored-slot.js';
import type { Point } from '../targeting/geometry.js';

/** Pages up to this number are kept: the ones nearly every client reads. */
const CACHED_PAGES = 3;

/** A feed page after the first that is read from the database brings this many pages (itself and the next ones). */
const FEED_READ_AHEAD = 3;

/** A page as read: its answer (its items serialised already), the key of its items array and each item's uploader, in order. */
interface ReadPage {
  answer: Record<string, unknown>;
  itemsKey: string;
  uploaderIds: string[];
}

export class ListingAnswers {
  constructor(
    private readonly listings: ContentListings,
    private readonly feed: ContentFeed,
    private readonly pages: ReadCache<string, CachedPage>,
    private readonly blocks: BlockService,
    private readonly slot: SponsoredSlot | null = null,
  ) {}

  /** `viewer`: who asks, for the sponsored slot of the first page (CONTRACT §26). */
  async listAll(caller: Caller | null, q: ListAllQuery, viewer?: SlotViewer): Promise<unknown> {
    // The centre only picks the sponsored item: never the page, nor its cache key.
    const listed: ListAllQuery = { ...q, latitude: undefined, longitude: undefined };
    const page = await this.listAllPage(caller, listed);
    if (q.page !== 1 || !viewer) return page;
    return this.sponsored(page, { viewer, at: pointOf(q), listing: 'all', itemsKey: 'item', canReadContact: viewerOf(caller).canReadContact, lang: q.lang });
  }

  private async listAllPage(caller: Caller | null, q: ListAllQuery): Promise<JsonText> {
    const blocked = await this.blockedFromIndex(caller);
    const read = async (): Promise<ReadPage> => {
      const { answer, uploaderIds } = await this.listings.listAll(caller, q, blocked ?? undefined);
      return { answer, itemsKey: 'item', uploaderIds };
    };
    // A page read without a caller's blocked uploaders is theirs alone: never cached (and still
    // filtered after, as the index may stop answering before the read).
    if (blocked) return this.filtered(caller, read);
    if (q.page > CACHED_PAGES) return this.filtered(caller, read);
    // Who sees what (listings.ts): everyone the published items, a user also their own, an
    // administrator every live item; and only `read:contact` holders see phone numbers.
    const audience = !caller ? 'anyone' : can(caller, ADMIN_CONTENT_PERMISSION) ? 'every' : `user:${caller.userId}`;
    const key = `all|${audience}|${viewerOf(caller).canReadContact}|${JSON.stringify(q)}`;
    return this.cached(caller, key, read);
  }

  async listCompleted(caller: Caller | null, q: CompletedQuery, lang: Language, viewer?: SlotViewer): Promise<unknown> {
    // The viewport's centre is the area the viewer browses (the sponsored slot's targeting).
    const at = pointOf(q);
    if (viewer && at) this.slot?.rememberArea(viewer, at);
    const blocked = await this.blockedFromIndex(caller);
    const read = async (): Promise<ReadPage> => {
      const { answer, uploaderIds } = await this.listings.listCompleted(caller, q, lang, blocked ?? undefined);
      return { answer, itemsKey: 'items', uploaderIds };
    };
    // A page read without a caller's blocked uploaders is theirs alone: never cached.
    if (blocked || q.page > CACHED_PAGES) return this.filtered(caller, read);
    const key = `completed|${viewerOf(caller).canReadContact}|${lang}|${JSON.stringify(q)}`;
    return this.cached(caller, key, read);
  }

  /** Map clusters (CONTRACT §23): never cached (every pan is a new box); a blocker's blocked uploaders left out. */
  async clusters(caller: Caller | null, q: ClustersQuery): Promise<unknown> {
    return this.listings.clusters(q, await this.blocks.hiddenFrom(caller?.userId));
  }

  /**
   * A page of the caller's feed, the first (no cursor) or the one after `cursor`, from the page
   * cache. A page after the first that is not kept is read with the FEED_READ_AHEAD - 1 pages after
   * it, in the same queries, and all are kept: a client scrolling on finds the next ones here.
   */
  async feedPage(caller: Caller, perPage: number, cursor: string | undefined, lang: Language, at?: Point): Promise<JsonText> {
    const page = await this.feedPageOf(caller, perPage, cursor, lang);
    if (cursor) return page;
    return this.sponsored(page, { viewer: { key: `u:${caller.userId}`, userId: caller.userId }, at, listing: 'feeds', itemsKey: 'items', canReadContact: false, lang });
  }

  /** The one place a first page gets the caller's sponsored item (after the cache: the page is everyone's, the slot the caller's). */
  private sponsored(page: JsonText, request: SlotRequest): Promise<JsonText> {
    return this.slot ? this.slot.fill(page, request) : Promise.resolve(page);
  }

  private async feedPageOf(caller: Caller, perPage: number, cursor: string | undefined, lang: Language): Promise<JsonText> {
    const key = (at: string | undefined) => `feed|${caller.userId}|${perPage}|${lang}|${at ?? ''}`;
    const hidden = this.blocks.hiddenFrom(caller.userId);
    let page = this.pages.get(key(cursor));
    if (!page) {
      const epoch = this.pages.epoch();
      // Nothing is kept with the cache off or untrusted: then only the page asked for is read.
      const count = cursor && this.pages.active() ? FEED_READ_AHEAD : 1;
      // A cursor this service did not issue fails here (400) and leaves nothing in the cache.
      const [asked, ...ahead] = (await this.feed.pagesWithUploaders(caller, perPage, cursor, lang, count)).map((fresh) => ({
        at: fresh.cursor,
        page: { answer: JsonText.of(fresh.answer), itemsKey: 'items', uploaderIds: fresh.uploaderIds },
      }));
      for (const { at, page: kept } of [asked, ...ahead]) this.pages.set(key(at), kept, epoch);
      page = asked.page;
    }
    return withoutHidden(page, await hidden);
  }

  /** The caller's blocked uploaders when they have some and the listing index answers (it leaves them out itself); else null. */
  private async blockedFromIndex(caller: Caller | null): Promise<ReadonlySet<string> | null> {
    if (!caller || !this.listings.fromIndex()) return null;
    const hidden = await this.blocks.hiddenFrom(caller.userId);
    return hidden.size ? hidden : null;
  }

  private async cached(caller: Caller | null, key: string, read: () => Promise<ReadPage>): Promise<JsonText> {
    const hidden = this.blocks.hiddenFrom(caller?.userId);
    let page = this.pages.get(key);
    if (!page) {
      const epoch = this.pages.epoch();
      const fresh = await read();
      page = { answer: JsonText.object(fresh.answer), itemsKey: fresh.itemsKey, uploaderIds: fresh.uploaderIds };
      this.pages.set(key, page, epoch);
    }
    return withoutHidden(page, await hidden);
  }

  private async filtered(caller: Caller | null, read: () => Promise<ReadPage>): Promise<JsonText> {
    const [fresh, hidden] = await Promise.all([read(), this.blocks.hiddenFrom(caller?.userId)]);
    return withoutHidden({ answer: JsonText.object(fresh.answer), itemsKey: fresh.itemsKey, uploaderIds: fresh.uploaderIds }, hidden);
  }
}

/** The centre a request names, when it names one. */
function pointOf(q: { latitude?: number; longitude?: number }): Point | undefined {
  return q.latitude !== undefined && q.longitude !== undefined ? { latitude: q.latitude, longitude: q.longitude } : undefined;
}

/** The page's answer as it is, or, when it lists items of `hidden` uploaders, without them. */
function withoutHidden(page: CachedPage, hidden: ReadonlySet<string>): JsonText {
  if (!hidden.size || !page.uploaderIds.some((id) => hidden.has(id))) return page.answer;
  const answer = JSON.parse(page.answer.text) as Record<string, unknown>;
  const items = answer[page.itemsKey];
  if (Array.isArray(items)) answer[page.itemsKey] = items.filter((_, i) => !hidden.has(page.uploaderIds[i]));
  return JsonText.of(answer);
}
