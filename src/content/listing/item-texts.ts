// The items of listing answers as JSON text, kept per item and variant (whether the caller may
// read phone numbers; the language asked for) for the rows of the listing index. A row there is
// never changed in place: an item's change writes a new row, with a new write number (`version`).
// So a text stays right for as long as it is asked for the same write, and a changed item's old
// text is simply never used again (it ages out). An item that shows on many pages and in many
// searches is turned into JSON once, not for every answer, and its row is decoded only then.
import { JsonText } from '../../shared/json-text.js';
import type { ReadCache } from '../../read-model/index.js';
import type { CachedItemText } from '../../read-model/index.js';
import type { PageItem } from '../search-index/index-types.js';
import type { ContentSerialiser, Viewer } from '../serialise.js';
import type { Language } from '../values.js';

export class ItemTexts {
  constructor(
    private readonly serialiser: ContentSerialiser,
    private readonly kept: ReadCache<string, CachedItemText>,
  ) {}

  /** An item of `GET /all` (serialise.ts listingItem). */
  listingItem(item: PageItem, viewer: Viewer, lang: Language | undefined): JsonText {
    return this.text(`all|${viewer.canReadContact}|${lang ?? ''}|${item.id}`, item, () => this.serialiser.listingItem(item.row(), viewer, lang));
  }

  /** An item of `GET /completed` (serialise.ts completedItem). */
  completedItem(item: PageItem, viewer: Viewer, lang: Language): JsonText {
    return this.text(`completed|${viewer.canReadContact}|${lang}|${item.id}`, item, () => this.serialiser.completedItem(item.row(), viewer, lang));
  }

  private text(key: string, item: PageItem, make: () => unknown): JsonText {
    const epoch = this.kept.epoch();
    const kept = this.kept.get(key);
    if (kept?.version === item.version) return kept.text;
    const text = JsonText.of(make());
    this.kept.set(key, { version: item.version, text }, epoch);
    return text;
  }
}
