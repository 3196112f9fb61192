// The rules of the live feed (CONTRACT §15) that realtime/namespaces/feed.ts delivers (with
// counts.ts and publishes.ts): whose items a socket follows, which items it may watch,
// the counts it is sent, and a newly published item as the feed item of `GET /feeds` in each
// language (so each node can hand every socket its own).
import { can, type Caller } from '../../shared/caller.js';
import type { FollowRepository } from '../../follows/index.js';
import type { ContentRepository } from '../content-repository.js';
import type { LiveContentRepository } from './repository.js';
import type { ContentStats, FeedItem, PublishedItem } from './schemas.js';
import type { ContentSerialiser } from '../serialise.js';
import { ADMIN_CONTENT_PERMISSION } from '../access.js';
import { LANGUAGES, type Language } from '../values.js';

/**
 * Uploaders whose publishes one socket hears, most recently followed first: a socket joins one
 * room per followed uploader, so this bounds the rooms a socket holds.
 */
export const MAX_FOLLOWED_ROOMS = 5_000;

export class ContentLiveFeed {
  constructor(
    private readonly live: LiveContentRepository,
    private readonly contents: ContentRepository,
    private readonly follows: FollowRepository,
    private readonly serialiser: ContentSerialiser,
  ) {}

  followedUploaderIds(userId: string): Promise<string[]> {
    return this.follows.followingIds(userId, MAX_FOLLOWED_ROOMS);
  }

  /** The ids among `ids` the caller may watch: items they may see (CONTRACT §19), without repeats. */
  watchableIds(caller: Caller, ids: string[]): Promise<string[]> {
    return this.live.viewableIds([...new Set(ids)], caller.userId, can(caller, ADMIN_CONTENT_PERMISSION));
  }

  stats(ids: string[]): Promise<ContentStats[]> {
    return this.live.stats(ids);
  }

  /** The item as published now, in every language; null when it is gone or not published. */
  async publishedItem(contentId: string): Promise<PublishedItem | null> {
    const row = await this.contents.findLive(contentId);
    if (!row || row.status !== 'completed') return null;
    const items = Object.fromEntries(LANGUAGES.map((lang) => [lang, this.serialiser.feedItem(row, lang)])) as Record<Language, FeedItem>;
    return { contentId: row.id, uploaderId: row.uploader_id, latitude: row.latitude, longitude: row.longitude, items };
  }
}
