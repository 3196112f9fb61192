// /feed: the live feed (CONTRACT §15).
// - `feed:new`: each socket joins, at connect, one room per uploader the caller follows
//   (`author:<id>`; kept current by follow.created / follow.deleted on every node), so a publish
//   is one adapter broadcast per language to one room, however many followers the uploader has.
//   The uploader never follows themselves, so never hears their own publish.
// - `content:watch` → `content:stats`: watchers sit in `watch:<id>`; changes are coalesced per
//   item on each node for that node's own watchers (at most one event per item per second per
//   socket, the last one carrying the final counts).
// - `area:watch` → `listing:new`: each node files its sockets' viewports in a grid index
//   (feed-viewport-index.ts, beside this file) and tests a published item's point against the few
//   viewports filed in its cells.
// For stats and listings the node where a change happens tells the others (serverSideEmit: one
// message per count change, one per located publish) and every node delivers to its own sockets.
// docs/feed.md.
import type { AppContext } from '../../src/context.js';
import type { ContentLiveFeed, PublishedItem } from '../../src/content/live-feed.js';
import { areaWatchPayload, contentWatchPayload, socketLanguage, type AreaWatch } from '../../src/content/live-schemas.js';
import { KeyedThrottle } from '../../src/shared/keyed-throttle.js';
import { ViewportIndex } from './feed-viewport-index.js';
import { viewportAround } from '../../src/content/viewport.js';
import { LANGUAGES, DEFAULT_LANGUAGE, type Language } from '../../src/content/values.js';
import { rooms, type RealtimeSocket } from '../events.js';
import { refuse, type NamespaceEdge } from '../socket-edge.js';
import type { BlockService } from '../../src/blocks/service.js';
import { blockerRooms } from '../blocked-rooms.js';

/** CONTRACT §15: at most one `content:stats` per item per second. */
const STATS_INTERVAL_MS = 1000;

const languageOf = (socket: RealtimeSocket): Language => LANGUAGES.find((lang) => socket.rooms.has(rooms.language(lang))) ?? DEFAULT_LANGUAGE;
const otherLanguageRooms = (lang: Language) => LANGUAGES.filter((l) => l !== lang).map(rooms.language);

export function registerFeedNamespace(edge: NamespaceEdge, app: AppContext, liveFeed: ContentLiveFeed, blocks: BlockService): () => void {
  const { nsp } = edge;
  // With Redis other nodes exist and hear serverSideEmit; the in-memory adapter has no peers.
  const clustered = Boolean(app.config.REDIS_URL);
  const areas = new ViewportIndex<RealtimeSocket>();

  // Joined before `connection`, so nothing published from then on is missed.
  edge.use(async (socket) => {
    const auth = socket.handshake.auth as { language?: unknown } | undefined;
    socket.join(rooms.language(socketLanguage(auth?.language, socket.handshake.headers['x-language'])));
    let ids: string[];
    try {
      ids = await liveFeed.followedUploaderIds(socket.data.caller.userId);
    } catch (err) {
      app.log.warn({ err: (err as Error).message }, 'could not read follows for a feed socket');
      // A feed socket that silently hears no followed uploader would look broken: refuse, the client retries.
      throw refuse('unavailable', 'service.error.unavailable');
    }
    if (ids.length && socket.conn.readyState === 'open') socket.join(ids.map(rooms.author));
  });

  const watchArea = (socket: RealtimeSocket, area: AreaWatch) => {
    socket.data.feedArea = area;
    areas.watch(socket, viewportAround(area.latitude, area.longitude, area.zoom_level));
  };

  edge.onConnection((socket, on) => {
    const { caller } = socket.data;
    // A socket restored by connection state recovery has its rooms back (followed uploaders,
    // language, watched items) and its viewport in its data; a new one has none of them.
    let watched = [...socket.rooms].filter((room) => room.startsWith(rooms.watch('')));
    if (socket.recovered && socket.data.feedArea) watchArea(socket, socket.data.feedArea);
    // Counts are sent by each node to its own sockets, so a node's stream holds none to replay:
    // a restored socket is sent its watched items' counts as they are now instead.
    if (socket.recovered && watched.length) {
      liveFeed.stats(watched.map((room) => room.slice(rooms.watch('').length))).then(
        (list) => list.forEach((stats) => socket.emit('content:stats', stats)),
        (err) => app.log.warn({ err: (err as Error).message }, 'could not send counts to a restored feed socket'),
      );
    }
    // One watch change at a time per socket, so a slower earlier one cannot land last.
    let watching: Promise<void> = Promise.resolve();
    on('content:watch', contentWatchPayload, async ({ contentIds }) => {
      const apply = watching.then(async () => {
        const wanted = new Set((await liveFeed.watchableIds(caller, contentIds)).map(rooms.watch));
        // Gone meanwhile: its rooms were left when it disconnected, and must stay left.
        if (!socket.connected) return;
        for (const room of watched) if (!wanted.has(room)) socket.leave(room);
        if (wanted.size) socket.join([...wanted]);
        watched = [...wanted];
      });
      watching = apply.catch(() => undefined);
      await apply;
    });
    on('area:watch', areaWatchPayload, async (area) => {
      if (socket.connected) watchArea(socket, area);
    });
    socket.on('disconnect', () => areas.unwatch(socket));
  });

  // Only this node's sockets: the index is node-local, and every node runs this for a publish.
  // Not to the sockets of those who blocked the uploader (CONTRACT §21).
  const deliverListings = async (published: PublishedItem) => {
    if (published.latitude === null || published.longitude === null) return;
    const sockets = areas.containing(published.latitude, published.longitude);
    if (!sockets.length) return;
    let blockers: Set<string>;
    try {
      blockers = new Set(await blocks.blockersOf(published.uploaderId));
    } catch (err) {
      app.log.warn({ err: (err as Error).message }, 'listing:new not pushed: blocks unreadable');
      return;
    }
    for (const socket of sockets) {
      if (socket.connected && !blockers.has(socket.data.caller.userId)) socket.emit('listing:new', published.items[languageOf(socket)]);
    }
  };

  const counts = new KeyedThrottle(STATS_INTERVAL_MS, async (contentId) => {
    const room = rooms.watch(contentId);
    if (!nsp.adapter.rooms.get(room)?.size) return;
    try {
      const [stats] = await liveFeed.stats([contentId]);
      if (stats) nsp.local.to(room).emit('content:stats', stats);
    } catch (err) {
      app.log.warn({ err: (err as Error).message, contentId }, 'could not read counts for content:stats');
    }
  });
  const countsChanged = (contentId: string) => {
    counts.touch(contentId);
    if (clustered) nsp.serverSideEmit('feed:counts-changed', contentId);
  };

  nsp.on('feed:published', (published: PublishedItem) => void deliverListings(published));
  nsp.on('feed:counts-changed', (contentId) => counts.touch(contentId));
  const stops = [
    app.events.subscribe('video.completed', async ({ contentId }) => {
      const published = await liveFeed.publishedItem(contentId);
      if (!published) return;
      // Through the adapter (one emit per language to the uploader's room): every node delivers
      // it, and a socket that was away gets it back on recovery.
      // Followers only, and a block ends follows both ways; still, a blocker never gets it.
      const blockers = await blockerRooms(blocks, published.uploaderId);
      for (const lang of LANGUAGES) {
        nsp.to(rooms.author(published.uploaderId)).except([...otherLanguageRooms(lang), ...blockers]).emit('feed:new', published.items[lang]);
      }
      await deliverListings(published);
      if (clustered && published.latitude !== null) nsp.serverSideEmit('feed:published', published);
    }),
    app.events.subscribe('comment.created', ({ comment }) => countsChanged(comment.contentId)),
    app.events.subscribe('reaction.changed', ({ contentId }) => countsChanged(contentId)),
    // Through the adapter: the follower's sockets on every node join or leave the room.
    app.events.subscribe('follow.created', ({ follower_id, following_id }) => {
      nsp.in(rooms.user(follower_id)).socketsJoin(rooms.author(following_id));
    }),
    app.events.subscribe('follow.deleted', ({ follower_id, following_id }) => {
      nsp.in(rooms.user(follower_id)).socketsLeave(rooms.author(following_id));
    }),
  ];
  return () => {
    stops.forEach((stop) => stop());
    counts.stop();
    nsp.removeAllListeners('feed:published');
    nsp.removeAllListeners('feed:counts-changed');
  };
}
