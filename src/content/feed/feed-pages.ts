// `GET /feeds` as clients ask for it: every page of the caller's feed, serialised once and kept in
// the read model's page cache until an event that could change it (a new, changed or deleted
// item, a reaction, a comment, a follow, a user's new name: src/read-model/read-model.ts) clears
// it. A page after the first is named by its cursor, which fixes the feed's snapshot time: the
// same cursor lists the same items until one of those events, so it is kept like the first page
// (several devices of one user page through the same cursors); and a page after the first read
// from the database brings the next two with it, for a client that scrolls on.
//
// Blocks (CONTRACT §21): a kept page is shared by every device of its user, and the items of the
// users they blocked are left out after the cache: each page is kept with the uploader of each
// item and the blocked uploaders' items are dropped from the answer (a shorter page: cursors stay
// the same for every device). docs/moderation.md, "Blocks".
import type { Caller } from '../../auth/index.js';
import { JsonText } from '../../shared/json-text.js';
import type { ReadCache } from '../../read-model/index.js';
import type { CachedPage } from '../../read-model/index.js';
import type { BlockService } from '../../blocks/index.js';
import type { Language } from '../values.js';
import type { ContentFeed } from './feed.js';
import type { BrowsedPoint, FirstPageSlot } from '../listing/first-page-slot.js';

/** A feed page after the first that is read from the database brings this many pages (itself and the next ones). */
const FEED_READ_AHEAD = 3;

export class FeedPages {
  constructor(
    private readonly feed: ContentFeed,
    private readonly pages: ReadCache<string, CachedPage>,
    private readonly blocks: BlockService,
    private readonly slot: FirstPageSlot | null = null,
  ) {}

  /**
   * A page of the caller's feed, the first (no cursor) or the one after `cursor`, from the page
   * cache. A page after the first that is not kept is read with the FEED_READ_AHEAD - 1 pages after
   * it, in the same queries, and all are kept: a client scrolling on finds the next ones here.
   */
  async page(caller: Caller, perPage: number, cursor: string | undefined, lang: Language, at?: BrowsedPoint): Promise<JsonText> {
    const page = await this.pageOf(caller, perPage, cursor, lang);
    // The first page gets the caller's sponsored item after the cache (the page is every device's, the slot the caller's).
    if (cursor || !this.slot) return page;
    return this.slot.fill(page, { viewer: { userId: caller.userId, address: '' }, at, listing: 'feeds', itemsKey: 'items', canReadContact: false, lang });
  }

  private async pageOf(caller: Caller, perPage: number, cursor: string | undefined, lang: Language): Promise<JsonText> {
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
}

/** The page's answer as it is, or, when it lists items of `hidden` uploaders, without them. */
function withoutHidden(page: CachedPage, hidden: ReadonlySet<string>): JsonText {
  if (!hidden.size || !page.uploaderIds.some((id) => hidden.has(id))) return page.answer;
  const answer = JSON.parse(page.answer.text) as Record<string, unknown>;
  const items = answer[page.itemsKey];
  if (Array.isArray(items)) answer[page.itemsKey] = items.filter((_, i) => !hidden.has(page.uploaderIds[i]));
  return JsonText.of(answer);
}
