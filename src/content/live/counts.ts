// The live counts of CONTRACT §15 (`content:stats`): which changes move an item's counts (a
// comment, a reaction), and how often its watchers hear of them: at most one per item per
// second, the last one after a burst carrying the final counts. Each node coalesces for its own
// watchers: the node where a change happens tells the others (through the realtime door's port),
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
  /** Tells the other nodes that the item's counts changed (each then calls `changedElsewhere`). */
  tellOthers(contentId: string): void;
}

export class LiveCounts {
  private throttle: KeyedThrottle | null = null;

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
    this.throttle = throttle;
    const changedHere = (contentId: string) => {
      throttle.touch(contentId);
      watchers.tellOthers(contentId);
    };
    const stops = [
      this.app.events.subscribe('comment.created', ({ comment }) => changedHere(comment.contentId)),
      this.app.events.subscribe('reaction.changed', ({ contentId }) => changedHere(contentId)),
    ];
    return () => {
      stops.forEach((stop) => stop());
      throttle.stop();
      if (this.throttle === throttle) this.throttle = null;
    };
  }

  /** Another node saw the item's counts change. */
  changedElsewhere(contentId: string): void {
    this.throttle?.touch(contentId);
  }

  /**
   * The counts as they are now, for a socket restored by recovery: counts are sent by each node
   * to its own watchers, so no stream holds them to replay.
   */
  current(contentIds: string[]): Promise<ContentStats[]> {
    return this.liveFeed.stats(contentIds);
  }
}
