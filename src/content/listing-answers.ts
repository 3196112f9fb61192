// The listing answers as clients ask for them most: the first pages of `GET /all`, `GET /completed`
// and the caller's `GET /feeds`, serialised once and kept in the read model's page cache until an
// event that could change them (a new, changed or deleted item, a reaction, a comment, a follow,
// a user's new name: src/read-model/read-model.ts) clears it. Deeper pages, cursors and the
// rest go to the database every time.
import { can, type Caller } from '../auth/caller.js';
import { JsonText } from '../shared/json-text.js';
import type { ReadCache } from '../read-model/read-cache.js';
import type { CachedPage } from '../read-model/read-model.js';
import type { ContentFeed } from './feed.js';
import type { ContentListings } from './listings.js';
import type { CompletedQuery, ListAllQuery } from './schemas.js';
import { ADMIN_CONTENT_PERMISSION, viewerOf } from './access.js';
import type { Language } from './values.js';

/** Pages up to this number are kept: the ones nearly every client reads. */
const CACHED_PAGES = 3;

export class ListingAnswers {
  constructor(
    private readonly listings: ContentListings,
    private readonly feed: ContentFeed,
    private readonly pages: ReadCache<string, CachedPage>,
  ) {}

  listAll(caller: Caller | null, q: ListAllQuery): Promise<unknown> {
    if (q.page > CACHED_PAGES) return this.listings.listAll(caller, q);
    // Who sees what (listings.ts): everyone the published items, a user also their own, an
    // administrator every live item; and only `read:contact` holders see phone numbers.
    const audience = !caller ? 'anyone' : can(caller, ADMIN_CONTENT_PERMISSION) ? 'every' : `user:${caller.userId}`;
    const key = `all|${audience}|${viewerOf(caller).canReadContact}|${JSON.stringify(q)}`;
    return this.cached(key, () => this.listings.listAll(caller, q));
  }

  listCompleted(caller: Caller | null, q: CompletedQuery, lang: Language): Promise<unknown> {
    if (q.page > CACHED_PAGES) return this.listings.listCompleted(caller, q, lang);
    const key = `completed|${viewerOf(caller).canReadContact}|${lang}|${JSON.stringify(q)}`;
    return this.cached(key, () => this.listings.listCompleted(caller, q, lang));
  }

  /** The caller's feed; its first page (no cursor) from the page cache. */
  feedPage(caller: Caller, perPage: number, cursor: string | undefined, lang: Language): Promise<unknown> {
    if (cursor) return this.feed.page(caller, perPage, cursor, lang);
    return this.cached(`feed|${caller.userId}|${perPage}|${lang}`, () => this.feed.page(caller, perPage, undefined, lang));
  }

  private async cached(key: string, read: () => Promise<unknown>): Promise<JsonText> {
    const kept = this.pages.get(key);
    if (kept) return kept.answer;
    const epoch = this.pages.epoch();
    const answer = JsonText.of(await read());
    this.pages.set(key, { answer }, epoch);
    return answer;
  }
}
