// /feed: the live feed (CONTRACT §15, docs/feed.md).
// - `feed:new`: each socket joins, at connect, one room per uploader the caller follows
//   (`author:<id>`; kept current by follow.created / follow.deleted on every node), so a publish
//   (`content.published`, src/content/live-publishes.ts) is one adapter broadcast per language to
//   one room, however many followers the uploader has. The uploader never follows themselves, so
//   never hears their own publish.
// - `content:watch` → `content:stats`: watchers sit in `watch:<id>`; which changes count and how
//   often they are sent is the domain's (src/content/live-counts.ts): it publishes `content.stats`
//   when this node's watchers are due, and this door delivers it to this node's sockets only.
// - `area:watch` → `listing:new`: each node files its sockets' viewports in a grid index
//   (feed-viewport-index.ts, beside this file) and tests a published item's point against the few
//   viewports filed in its cells.
// For counts and listings the node where a change happens tells the others (serverSideEmit: one
// message per count change, one per located publish) and every node delivers to its own sockets.
import { slotViewer } from '../../src/campaigns/sponsored-slot.js';
import type { PublishedItem } from '../../src/content/live-feed.js';
import { areaWatchPayload, contentStatsSchema, contentWatchPayload, feedItemSchema, socketLanguage, type AreaWatch } from '../../src/content/live-schemas.js';
import { viewportAround } from '../../src/content/viewport.js';
import { LANGUAGES, DEFAULT_LANGUAGE, type Language } from '../../src/content/values.js';
import type { RealtimeSocket } from '../events.js';
import { rooms } from '../rooms.js';
import { refuse } from '../socket-edge.js';
import { clientEvents, defineNamespace, push } from '../namespace.js';
import { ViewportIndex } from './feed-viewport-index.js';

/** Between nodes (serverSideEmit): each node delivers counts and listings to its own sockets. */
export interface FeedInterServerEvents {
  'feed:published': (item: PublishedItem) => void;
  'feed:counts-changed': (contentId: string) => void;
}

interface FeedNode {
  /** This node's sockets by watched viewport. */
  areas: ViewportIndex<RealtimeSocket>;
  stops: (() => void)[];
}

interface FeedSocket {
  /** The `watch:` rooms the socket is in. */
  watched: string[];
  /** The watch change under way: one at a time per socket, so a slower earlier one cannot land last. */
  watching: Promise<void>;
}

const languageOf = (socket: RealtimeSocket): Language => LANGUAGES.find((lang) => socket.rooms.has(rooms.language(lang))) ?? DEFAULT_LANGUAGE;
const otherLanguageRooms = (lang: Language) => LANGUAGES.filter((l) => l !== lang).map(rooms.language);

const watchArea = (socket: RealtimeSocket, areas: ViewportIndex<RealtimeSocket>, area: AreaWatch) => {
  socket.data.feedArea = area;
  areas.watch(socket, viewportAround(area.latitude, area.longitude, area.zoom_level));
};

const event = clientEvents<FeedNode, FeedSocket>();

export const feedNamespace = defineNamespace<FeedNode, FeedSocket>()({
  name: '/feed',
  description:
    'The live feed (CONTRACT §15). Items come in the language of `auth.language` (or the `x-language` header): en, vi or ko, else en. ' +
    'From the handshake on the socket hears the publishes of every user the caller follows (the 5,000 most recently followed).',

  events: {
    'content:watch': event({
      summary: 'Watch the counts of up to 50 items (replaces the previous set; [] stops). Ids of items the caller may not see are left out.',
      payload: contentWatchPayload,
      ack: null,
      async handle({ contentIds }, { socket, caller, services, state }) {
        const apply = state.watching.then(async () => {
          const wanted = new Set((await services.liveFeed.watchableIds(caller, contentIds)).map(rooms.watch));
          // Gone meanwhile: its rooms were left when it disconnected, and must stay left.
          if (!socket.connected) return;
          for (const room of state.watched) if (!wanted.has(room)) socket.leave(room);
          if (wanted.size) socket.join([...wanted]);
          state.watched = [...wanted];
        });
        state.watching = apply.catch(() => undefined);
        await apply;
      },
    }),
    'area:watch': event({
      summary: 'Watch a map viewport (the viewport of GET /completed at latitude, longitude, zoom_level); replaces the previous one.',
      payload: areaWatchPayload,
      ack: null,
      async handle(area, { socket, node, caller, services }) {
        // The viewport's centre is the area the caller browses (the sponsored slot's targeting, CONTRACT §26).
        services.sponsoredSlot.rememberArea(slotViewer(caller.userId, ''), area);
        if (socket.connected) watchArea(socket, node.areas, area);
      },
    }),
  },

  pushes: {
    // Through the adapter (one emit per language to the uploader's room): every node delivers it,
    // and a socket that was away gets it back on recovery. Followers only, and a block ends
    // follows both ways; still, neither side of a block gets it.
    'feed:new': push({
      summary: 'A user the caller follows published an item (its video is processed); the item of GET /feeds.',
      payload: feedItemSchema,
      on: 'content.published',
      audience: (published, live) => live.ofActor(published.uploaderId),
      emit: (published) => LANGUAGES.map((lang) => ({ to: rooms.author(published.uploaderId), except: otherLanguageRooms(lang), data: published.items[lang] })),
    }),
    'content:stats': push({
      summary: 'The counts of a watched item changed; at most one per item per second, the last one after a burst carrying the final counts.',
      payload: contentStatsSchema,
      on: 'content.stats',
      emit: (stats) => ({ to: rooms.watch(stats.contentId), data: stats }),
      local: true,
    }),
    // Sent by this node to its own sockets whose viewport holds the item (below).
    'listing:new': push({
      summary: 'An item inside the watched viewport was published; the item of GET /feeds.',
      payload: feedItemSchema,
    }),
  },

  start({ nsp, app, services }): FeedNode {
    const { liveAudience, liveCounts, livePublishes } = services;
    // With Redis other nodes exist and hear serverSideEmit; the in-memory adapter has no peers.
    const clustered = Boolean(app.config.REDIS_URL);
    const areas = new ViewportIndex<RealtimeSocket>();

    // Only this node's sockets: the index is node-local, and every node runs this for a publish.
    // Not to the sockets of either side of a block with the uploader (CONTRACT §21).
    const deliverListings = async (published: PublishedItem) => {
      if (published.latitude === null || published.longitude === null) return;
      const sockets = areas.containing(published.latitude, published.longitude);
      if (!sockets.length) return;
      let withheld: Set<string>;
      try {
        withheld = new Set((await liveAudience.ofActor(published.uploaderId)).withheld);
      } catch (err) {
        app.log.warn({ err: (err as Error).message }, 'listing:new not pushed: blocks unreadable');
        return;
      }
      for (const socket of sockets) {
        if (socket.connected && !withheld.has(socket.data.caller.userId)) socket.emit('listing:new', published.items[languageOf(socket)]);
      }
    };

    nsp.on('feed:published', (published: PublishedItem) => void deliverListings(published));
    nsp.on('feed:counts-changed', (contentId) => liveCounts.changedElsewhere(contentId));
    const stops = [
      livePublishes.start(),
      liveCounts.start({
        watched: (contentId) => Boolean(nsp.adapter.rooms.get(rooms.watch(contentId))?.size),
        tellOthers: (contentId) => {
          if (clustered) nsp.serverSideEmit('feed:counts-changed', contentId);
        },
      }),
      app.events.subscribe('content.published', async (published) => {
        await deliverListings(published);
        if (clustered && published.latitude !== null) nsp.serverSideEmit('feed:published', published);
      }),
      // Through the adapter: the follower's sockets on every node join or leave the room.
      app.events.subscribe('follow.created', ({ follower_id, following_id }) => {
        nsp.in(rooms.user(follower_id)).socketsJoin(rooms.author(following_id));
      }),
      app.events.subscribe('follow.deleted', ({ follower_id, following_id }) => {
        nsp.in(rooms.user(follower_id)).socketsLeave(rooms.author(following_id));
      }),
      () => {
        nsp.removeAllListeners('feed:published');
        nsp.removeAllListeners('feed:counts-changed');
      },
    ];
    return { areas, stops };
  },

  // Joined before `connection`, so nothing published from then on is missed.
  async handshake(socket, { app, services }) {
    const auth = socket.handshake.auth as { language?: unknown } | undefined;
    socket.join(rooms.language(socketLanguage(auth?.language, socket.handshake.headers['x-language'])));
    let ids: string[];
    try {
      ids = await services.liveFeed.followedUploaderIds(socket.data.caller.userId);
    } catch (err) {
      app.log.warn({ err: (err as Error).message }, 'could not read follows for a feed socket');
      // A feed socket that silently hears no followed uploader would look broken: refuse, the client retries.
      throw refuse('unavailable', 'service.error.unavailable');
    }
    if (ids.length && socket.conn.readyState === 'open') socket.join(ids.map(rooms.author));
  },

  // A socket restored by connection state recovery has its rooms back (followed uploaders,
  // language, watched items) and its viewport in its data; a new one has none of them.
  connect(socket, { app, services, node }): FeedSocket {
    const watched = [...socket.rooms].filter((room) => room.startsWith(rooms.watch('')));
    if (socket.recovered && socket.data.feedArea) watchArea(socket, node.areas, socket.data.feedArea);
    // Counts are sent by each node to its own sockets, so no stream holds them to replay: a
    // restored socket is sent its watched items' counts as they are now instead.
    if (socket.recovered && watched.length) {
      services.liveCounts.current(watched.map((room) => room.slice(rooms.watch('').length))).then(
        (list) => list.forEach((stats) => socket.emit('content:stats', stats)),
        (err) => app.log.warn({ err: (err as Error).message }, 'could not send counts to a restored feed socket'),
      );
    }
    socket.on('disconnect', () => node.areas.unwatch(socket));
    return { watched, watching: Promise.resolve() };
  },

  stop({ node }) {
    node.stops.forEach((stop) => stop());
  },
});
