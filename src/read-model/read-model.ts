// The read model of one node: bounded caches of what nearly every request reads (live sessions,
// profiles with their follow counts, content items and their serialised answers, the first pages
// of the listings), kept true by the domain events that change them. Each event is turned into
// invalidations (the table below), applied here at once and sent to the other nodes, which apply
// them too. The publisher of an event that must be seen everywhere before its request answers
// (an edit) uses publishAndWait: these listeners resolve once the other nodes have been handed
// the message (relay.ts). A revocation does not wait for an event: its invalidations commit with
// it (`invalidateWith`, used by src/auth/revocations.ts). See docs/read-model.md.
import type { Config } from '../config.js';
import type { Queryable } from '../db/client.js';
import type { DomainEvents } from '../events.js';
import type { DomainEventBus } from '../event-bus.js';
import type { HandlerName } from '../event-handlers.js';
import type { JsonText } from '../shared/json-text.js';
import type { Invalidation } from './invalidation.js';
import type { InvalidationRelay } from './relay.js';
import { ReadCache, type ReadCacheStats } from './read-cache.js';

/** A user's blocks both ways, as the `blocks` cache keeps them (src/blocks/ fills and drops it). */
export interface BlockRelations {
  /** Whom the user blocked. */
  blocked: string[];
  /** Who blocked the user. */
  blockedBy: string[];
}

/** A live session as a request's caller check needs it, and until when it may be trusted. */
export interface CachedSession {
  userId: string;
  username: string;
  role: string;
  roles: string[];
  /** The user's privacy.session_timeout, minutes (checked against this node's own view of the session's activity). */
  timeoutMinutes: number;
  /** Date.now() after which the database must be asked again (the session's next touch, at the latest). */
  freshUntil: number;
}

/** What the read model reads of a cached item's row (whose it is, how big its texts are); the row's shape is content's. */
export interface CachedItemRow {
  uploader_id: string;
  content_info: unknown;
}

/** An item row and the answers already serialised from it, by answer kind and viewer. */
export interface CachedItem<Row extends CachedItemRow = CachedItemRow> {
  row: Row;
  answers: Map<string, JsonText>;
}

/** A user's own profile (`GET /user/me`) with its follow counts, serialised. */
export interface CachedProfile {
  answer: JsonText;
}

/**
 * A user's profile as everyone else sees it (`GET /user/me?user_id=`), serialised twice: for a
 * viewer who follows the user and for one who does not (the only part that depends on the viewer).
 */
export interface CachedPublicProfile {
  following: JsonText;
  notFollowing: JsonText;
}

/** Whom a user follows (what `is_following` of the profiles they read says). */
export interface CachedFollowings {
  ids: ReadonlySet<string>;
}

/**
 * What changed of the listed items, for what keeps its own copy of them (the listing index,
 * src/content/search-index/index-sync.ts): one item, every item of one uploader, or anything.
 */
export type ItemChange = { kind: 'item'; contentId: string } | { kind: 'uploader'; userId: string } | { kind: 'all' };

/** A listing page's serialised answer, with the uploader of each of its items (in order), under `itemsKey`. */
export interface CachedPage {
  answer: JsonText;
  itemsKey: string;
  uploaderIds: string[];
}

/**
 * A listed item serialised for a listing answer (src/content/listing/item-texts.ts), with the row it was
 * made from: the text stands for that row only (a changed item is a new row).
 */
export interface CachedItemText {
  source: object;
  text: JsonText;
}

const SECOND = 1_000;
const ITEM_TEXTS_MAX_BYTES = 32 * 1024 * 1024;
const ITEMS_MAX_BYTES = 48 * 1024 * 1024;
const PAGES_MAX_BYTES = 48 * 1024 * 1024;
const BLOCKS_MAX_BYTES = 16 * 1024 * 1024;
const PUBLIC_PROFILES_MAX_BYTES = 32 * 1024 * 1024;
const FOLLOWINGS_MAX_BYTES = 16 * 1024 * 1024;

/**
 * An item's size, estimated when it is kept: its row plus the (at most two) detail answers made
 * from it later, each about as long as the row's text and a fixed part.
 */
const itemBytes = (item: CachedItem<CachedItemRow>): number => 3 * (JSON.stringify(item.row.content_info).length + 1_500);

export class ReadModel<ItemRow extends CachedItemRow = CachedItemRow> {
  readonly sessions: ReadCache<string, CachedSession>;
  readonly profiles: ReadCache<string, CachedProfile>;
  /** Other users' profiles, by the user seen (src/auth/profile.ts). */
  readonly publicProfiles: ReadCache<string, CachedPublicProfile>;
  /** Whom each user follows, by follower (src/auth/profile.ts). */
  readonly followings: ReadCache<string, CachedFollowings>;
  readonly items: ReadCache<string, CachedItem<ItemRow>>;
  readonly pages: ReadCache<string, CachedPage>;
  /** Listed items as listing answers show them, by item and variant (src/content/listing/item-texts.ts). */
  readonly itemTexts: ReadCache<string, CachedItemText>;
  /** Each user's blocks, both ways (src/blocks/service.ts): what listings and live events leave out for them. */
  readonly blocks: ReadCache<string, BlockRelations>;
  private readonly roleListeners: (() => void)[] = [];
  private readonly listingListeners: (() => void)[] = [];
  private readonly itemListeners: ((change: ItemChange) => Promise<void>)[] = [];
  private readonly endedElsewhereListeners: ((session: { userId: string; sessionId: string }) => void)[] = [];

  /** Whether this node's caches may answer now: caching is on and no invalidation can be missed. */
  readonly trusted: () => boolean;

  constructor(
    config: Pick<Config, 'READ_CACHE'>,
    events: DomainEventBus,
    private readonly relay: InvalidationRelay,
  ) {
    const usable = () => config.READ_CACHE === 'on' && relay.trusted();
    this.trusted = usable;
    // Sizes: a few hundred bytes a session or a profile; an item with its answers and a page vary
    // (a page of 100 items is ~100 KB), so those two are also bounded by their bytes. Pages: every
    // scrolling user keeps a few feed pages (src/content/feed/feed-pages.ts), so the count allows 10,000 small
    // ones (a feed page of 10 items is a few KB) and the bytes are the bound that matters.
    this.sessions = new ReadCache('sessions', { max: 100_000, ttlMs: 60 * SECOND }, usable);
    this.profiles = new ReadCache('profiles', { max: 50_000, ttlMs: 60 * SECOND }, usable);
    this.publicProfiles = new ReadCache(
      'public_profiles',
      { max: 50_000, ttlMs: 60 * SECOND, maxBytes: PUBLIC_PROFILES_MAX_BYTES, bytesOf: (p) => p.following.text.length + p.notFollowing.text.length },
      usable,
    );
    // A user who follows very many is not kept at all (profile.ts bounds the list it keeps).
    this.followings = new ReadCache(
      'followings',
      { max: 50_000, ttlMs: 60 * SECOND, maxBytes: FOLLOWINGS_MAX_BYTES, bytesOf: (f) => 64 + 40 * f.ids.size },
      usable,
    );
    this.items = new ReadCache<string, CachedItem<ItemRow>>(
      'items',
      { max: 20_000, ttlMs: 60 * SECOND, maxBytes: ITEMS_MAX_BYTES, bytesOf: itemBytes },
      usable,
    );
    // Listed items' texts: 1-2 KB each (a string of two-byte characters when the text is not Latin-1).
    this.itemTexts = new ReadCache(
      'item_texts',
      { max: 100_000, ttlMs: 600 * SECOND, maxBytes: ITEM_TEXTS_MAX_BYTES, bytesOf: (t, key) => 2 * t.text.text.length + key.length + 64 },
      usable,
    );
    this.pages = new ReadCache(
      'pages',
      { max: 10_000, ttlMs: 30 * SECOND, maxBytes: PAGES_MAX_BYTES, bytesOf: (page) => page.answer.text.length + 40 * page.uploaderIds.length },
      usable,
    );
    // A user's relations are two lists of ids (36 bytes each as text); a user blocked by very many
    // weighs more, so the cache is bounded by its size too.
    this.blocks = new ReadCache(
      'blocks',
      { max: 50_000, ttlMs: 60 * SECOND, maxBytes: BLOCKS_MAX_BYTES, bytesOf: (r) => 64 + 40 * (r.blocked.length + r.blockedBy.length) },
      usable,
    );
    relay.listen((invalidation) => {
      void this.apply(invalidation);
      if (invalidation.kind === 'session') for (const listener of this.endedElsewhereListeners) listener(invalidation);
    });

    // Which domain event makes what stale. (Ended sessions: invalidateWith, in the revoking transaction.)
    const on = <K extends keyof DomainEvents & string>(name: K, stale: (payload: DomainEvents[K]) => Invalidation) =>
      events.handle(name, 'read-model' as HandlerName<K>, (payload) => this.changed(stale(payload)), { awaited: true });
    on('user.changed', (e) => ({ kind: 'user', userId: e.userId }));
    on('follow.created', (e) => ({ kind: 'follow', userIds: [e.follower_id, e.following_id] }));
    on('follow.deleted', (e) => ({ kind: 'follow', userIds: [e.follower_id, e.following_id] }));
    on('block.changed', (e) => ({ kind: 'blocks', userIds: [e.blockerId, e.blockedId] }));
    on('role.permissions.changed', () => ({ kind: 'roles' }));
    on('content.created', (e) => ({ kind: 'listings', contentId: e.contentId }));
    on('content.changed', (e) => ({ kind: 'content', contentId: e.contentId }));
    on('content.deleted', (e) => ({ kind: 'content', contentId: e.contentId }));
    on('reaction.changed', (e) => ({ kind: 'content', contentId: e.contentId }));
    on('comment.created', (e) => ({ kind: 'content', contentId: e.comment.contentId }));
    on('video.completed', (e) => ({ kind: 'content', contentId: e.contentId }));
    on('video.failed', (e) => ({ kind: 'content', contentId: e.contentId }));
    // view_count (CONTRACT §26 lets it lag 10 s): the views' own cadence, a few seconds, not each report.
    events.handle(
      'views.counted',
      'read-model',
      (e) => Promise.all(e.contentIds.map((contentId) => this.changed({ kind: 'content', contentId }))).then(() => undefined),
      { awaited: true },
    );
  }

  /** `listener` runs whenever role permissions may have changed (on any node). */
  onRolesChanged(listener: () => void): void {
    this.roleListeners.push(listener);
  }

  /**
   * `listener` runs whenever the listed items may have changed (on any node): what else a node
   * remembers of listings (page boundaries, totals: src/content/listings.ts) must go too.
   */
  onListingsChanged(listener: () => void): void {
    this.listingListeners.push(listener);
  }

  /**
   * `listener` runs for every change of listed items, on any node. On the node that made the
   * change its promise is awaited before the change's request answers; on the others it runs
   * when the message arrives (the listener knows itself what it does not know yet).
   */
  onItemsChanged(listener: (change: ItemChange) => Promise<void>): void {
    this.itemListeners.push(listener);
  }

  /** Whether this node hears every other node's changes now (whatever READ_CACHE says). */
  hears(): boolean {
    return this.relay.trusted();
  }

  /** `listener` runs for each session that another node ended, when this node hears of it. */
  onSessionEndedElsewhere(listener: (session: { userId: string; sessionId: string }) => void): void {
    this.endedElsewhereListeners.push(listener);
  }

  /**
   * For a change every node must refuse from the next request on (a revocation): writes its
   * invalidations into `tx`, the transaction that makes the change, so every node hears them when,
   * and only if, it commits. Call the answer once committed: it applies them to this node's caches
   * and resolves true once every other node has applied them too, false when that is not sure.
   */
  async invalidateWith(tx: Queryable, invalidations: Invalidation[]): Promise<() => Promise<boolean>> {
    const handedOver = await this.relay.within(tx, invalidations);
    return () => {
      for (const invalidation of invalidations) void this.apply(invalidation);
      return handedOver();
    };
  }

  /**
   * Writes behind the service (a bulk import, a manual UPDATE of many items) announced: every
   * node forgets its listing pages and reads its listing index again (docs/search.md).
   */
  listingsRewritten(): Promise<void> {
    return this.changed({ kind: 'listings' });
  }

  /** Resolves once this node hears the others (or after `timeoutMs`; until then its caches answer nothing). */
  ready(timeoutMs: number): Promise<void> {
    return this.relay.ready(timeoutMs);
  }

  stats(): ReadCacheStats[] {
    return [
      this.sessions.stats(),
      this.profiles.stats(),
      this.publicProfiles.stats(),
      this.followings.stats(),
      this.items.stats(),
      this.pages.stats(),
      this.itemTexts.stats(),
      this.blocks.stats(),
    ];
  }

  close(): Promise<void> {
    return this.relay.close();
  }

  /** Applied here, then sent to the other nodes. */
  private async changed(invalidation: Invalidation): Promise<void> {
    const applied = this.apply(invalidation);
    await Promise.all([applied, this.relay.send(invalidation)]);
  }

  /** Applies the invalidation to the caches at once; resolves when the item listeners are done too. */
  private apply(invalidation: Invalidation): Promise<void> {
    const change = itemChangeOf(invalidation);
    const done = change ? Promise.all(this.itemListeners.map((listener) => listener(change))).then(() => undefined) : Promise.resolve();
    this.applyToCaches(invalidation);
    return done;
  }

  private applyToCaches(invalidation: Invalidation): void {
    switch (invalidation.kind) {
      case 'session':
        this.sessions.delete(invalidation.sessionId);
        return;
      case 'user': {
        const { userId } = invalidation;
        this.sessions.deleteWhere((s) => s.userId === userId);
        this.profiles.delete(userId);
        // A rename, a new role, a suspension or a deletion shows in what others see; the erasure's
        // deleted follows come as one of these for each user on the other end.
        this.publicProfiles.delete(userId);
        this.followings.delete(userId);
        this.items.deleteWhere((item) => item.row.uploader_id === userId);
        this.pages.clear();
        // A suspension or restore (CONTRACT §21) changes which of the user's items are listed.
        for (const listener of this.listingListeners) listener();
        return;
      }
      case 'follow':
        // Both users' counts, and the follower's list (a block's removed follows come as these too).
        for (const userId of invalidation.userIds) {
          this.profiles.delete(userId);
          this.publicProfiles.delete(userId);
          this.followings.delete(userId);
        }
        this.pages.clear();
        return;
      case 'blocks':
        // Pages are shared by every caller and filtered per caller after the cache: they stay.
        for (const userId of invalidation.userIds) this.blocks.delete(userId);
        return;
      case 'roles':
        for (const listener of this.roleListeners) listener();
        this.pages.clear();
        return;
      case 'content':
        this.items.delete(invalidation.contentId);
        this.pages.clear();
        for (const listener of this.listingListeners) listener();
        return;
      case 'listings':
        this.pages.clear();
        for (const listener of this.listingListeners) listener();
        return;
      case 'everything':
        for (const listener of this.roleListeners) listener();
        for (const listener of this.listingListeners) listener();
        this.sessions.clear();
        this.profiles.clear();
        this.publicProfiles.clear();
        this.followings.clear();
        this.items.clear();
        this.pages.clear();
        this.blocks.clear();
        return;
    }
  }
}

/** The change of listed items an invalidation stands for, if any. */
function itemChangeOf(invalidation: Invalidation): ItemChange | null {
  switch (invalidation.kind) {
    case 'content':
      return { kind: 'item', contentId: invalidation.contentId };
    case 'listings':
      return invalidation.contentId ? { kind: 'item', contentId: invalidation.contentId } : { kind: 'all' };
    case 'user':
      return { kind: 'uploader', userId: invalidation.userId };
    case 'everything':
      return { kind: 'all' };
    default:
      return null;
  }
}
