// Matching newly published items against saved searches (CONTRACT §16), exactly once per item:
// publishing an item queues it (a trigger in the publishing transaction, migration 0010); the
// matching transaction takes it off the queue, records each (search, item) pair under a unique key
// and writes the `instant` notifications, all or nothing. The `video.completed` event is the fast
// path (jobs/saved-search-matching.ts); the sweep job takes whatever a crash left queued. `daily`
// matches wait for one digest notification a day per search.
import type { AppContext } from '../context.js';
import type { NotificationService } from '../notifications/index.js';
import type { SavedSearchMatchRepository } from './match-repository.js';

/** Queued items one sweep round takes. */
const SWEEP_BATCH = 100;
/** Searches one digest round takes. */
const DIGEST_BATCH = 200;
/** Items a digest names (its `count` says how many matched). */
const DIGEST_ITEMS = 20;

export class SavedSearchMatcher {
  constructor(
    private readonly app: AppContext,
    private readonly repository: SavedSearchMatchRepository,
    private readonly notifications: NotificationService,
  ) {}

  /**
   * Matches a queued item against every stored search and notifies `instant` ones; answers how
   * many searches it matched (0 also when the item was not queued, e.g. already matched).
   */
  async matchPublished(contentId: string): Promise<number> {
    const matched = await this.app.database.transaction(async (tx) => {
      const matches = this.repository.in(tx);
      if (!(await matches.dequeue(contentId))) return 0;
      const hits = await matches.searchesMatching(contentId);
      const instant = hits.filter((h) => h.notify === 'instant');
      const fresh = new Set(
        await matches.record(
          instant.map((h) => h.id),
          contentId,
          true,
        ),
      );
      await matches.record(
        hits.filter((h) => h.notify === 'daily').map((h) => h.id),
        contentId,
        false,
      );
      await this.notifications.notifyMany(
        tx,
        instant
          .filter((hit) => fresh.has(hit.id))
          .map((hit) => ({
            userId: hit.user_id,
            type: 'saved_search.match' as const,
            actorId: hit.uploader_id,
            subject: { type: 'content', id: contentId },
            data: { saved_search_id: hit.id, name: hit.name, contentId },
            dedupeKey: `saved_search:${hit.id}:${contentId}`,
          })),
      );
      return hits.length;
    });
    if (matched) this.notifications.deliverSoon();
    return matched;
  }

  /** Matches everything still queued (what the fast path missed); answers how many items it took. */
  async sweep(): Promise<number> {
    let taken = 0;
    for (;;) {
      const ids = await this.repository.queued(SWEEP_BATCH);
      for (const id of ids) {
        await this.matchPublished(id);
        taken++;
      }
      if (ids.length < SWEEP_BATCH) return taken;
    }
  }

  /** One `saved_search.match` digest per daily search with untold matches; answers how many were sent. */
  async sendDailyDigests(): Promise<number> {
    let sent = 0;
    for (;;) {
      const pending = await this.repository.pendingDigests(DIGEST_BATCH);
      for (const search of pending) {
        const told = await this.app.database.transaction(async (tx) => {
          const contentIds = await this.repository.in(tx).markDigested(search.saved_search_id);
          if (!contentIds.length) return false;
          await this.notifications.notify(tx, {
            userId: search.user_id,
            type: 'saved_search.match',
            actorId: null,
            subject: { type: 'saved_search', id: search.saved_search_id },
            data: {
              saved_search_id: search.saved_search_id,
              name: search.name,
              digest: true,
              count: contentIds.length,
              content_ids: contentIds.slice(0, DIGEST_ITEMS),
            },
          });
          return true;
        });
        if (told) sent++;
      }
      if (pending.length < DIGEST_BATCH) break;
    }
    if (sent) this.notifications.deliverSoon();
    return sent;
  }
}
