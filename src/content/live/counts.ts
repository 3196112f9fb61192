// The live counts of CONTRACT §15 (`content:stats`): which changes move an item's counts (a
// comment, a reaction), and how often its watchers hear of them: at most one per item per
// second, the last one after a burst carrying the final counts. Each node coalesces for its own
// watchers: the node where a change happens tells the others (through the realtime door's port,
// realtime/ports.ts; the composition root starts this service on it),
// and every node reads the counts only for items its sockets watch. What is due is published as
// `content.stats` on this node's bus; the door delivers it to this node's watchers alone.
import type { AppContext } from '../../context.js';
import { KeyedThrottle } from '../../shared/keyed-throttle.js';
import type { ContentLiveFeed } from './feed.js';
import type { ContentStats } from './schemas.js';

/** CONTRACT §15: at most one `content:stats` per item per second. */
export const STATS_INTERVAL_MS = 1000;

/** What the realtime door knows and the domain does not: this node's watchers, the other nodes. */
export interface CountWatchers {
  /** Whether a socket of this node watches the item's counts. */
  watched(contentId: string): boolean;
  /** Tells the other nodes that the item's counts changed. */
  tellOthers(contentId: string): void;
  /** Calls `listener` with each item another node said changed; the returned function stops. */
  heardFromOthers(listener: (contentId: string) => void): () => void;
}

export class LiveCounts {
  constructor(
    private readonly app: AppContext,
    private readonly liveFeed: ContentLiveFeed,
  ) {}

  /** Starts following count changes for `watchers`; the returned function stops. */
  start(watchers: CountWatchers): () => void {
    const throttle = new KeyedThrottle(STATS_INTERVAL_MS, async (contentId) => {
      if (!watchers.watched(contentId)) return;
      try {
        const [stats] = await this.liveFeed.stats([contentId]);
        if (stats) this.app.events.publish('content.stats', stats);
      } catch (err) {
        this.app.log.warn({ err: (err as Error).message, contentId }, 'could not read counts for content:stats');
      }
    });
    const changedHere = (contentId: string) => {
      throttle.touch(contentId);
      watchers.tellOthers(contentId);
    };
    const stops = [
      this.app.events.handle('comment.created', 'live-counts', ({ comment }) => changedHere(comment.contentId)),
      this.app.events.handle('reaction.changed', 'live-counts', ({ contentId }) => changedHere(contentId)),
      watchers.heardFromOthers((contentId) => throttle.touch(contentId)),
    ];
    return () => {
      stops.forEach((stop) => stop());
      throttle.stop();
    };
  }

  /**
   * The counts as they are now, for a socket restored by recovery: counts are sent by each node
   * to its own watchers, so no stream holds them to replay.
   */
  current(contentIds: string[]): Promise<ContentStats[]> {
    return this.liveFeed.stats(contentIds);
  }
}
