// /feed: the live feed (CONTRACT §15, docs/feed.md).
// - `feed:new`: each socket joins, at connect, one room per uploader the caller follows
//   (`author:<id>`; kept current by follow.created / follow.deleted on every node), so a publish
//   (`content.published`, src/content/live/publishes.ts) is one adapter broadcast per language to
//   one room, however many followers the uploader has. The uploader never follows themselves, so
//   never hears their own publish.
// - `content:watch` → `content:stats`: watchers sit in `watch:<id>`; which changes count and how
//   often they are sent is the domain's (src/content/live/counts.ts, started by the composition
//   root on the port realtime/ports.ts gives it): it publishes `content.stats` when this node's
//   watchers are due, and this door delivers it to this node's sockets only.
// - `area:watch` → `listing:new`: each node files its own sockets' viewports
//   (feed-viewport-sockets.ts, the door's bookkeeping); the push is declared like the others, its
//   audience the domain's (src/live/audience.ts), and every node delivers it to its own sockets.
import { areaWatchPayload, contentStatsSchema, contentWatchPayload, feedItemSchema, socketLanguage } from '../../src/content/index.js';
import { LANGUAGES, type Language } from '../../src/content/index.js';
import { rooms } from '../rooms.js';
import { refuse } from '../transport/socket-edge.js';
import { clientEvents, defineNamespace, push } from '../namespace.js';
import { FeedViewportSockets } from './feed-viewport-sockets.js';

interface FeedNode {
  /** This node's sockets by watched viewport. */
  viewports: FeedViewportSockets;
}

interface FeedSocket {
  /** The `watch:` rooms the socket is in. */
  watched: string[];
  /** The watch change under way: one at a time per socket, so a slower earlier one cannot land last. */
  watching: Promise<void>;
}

type FeedServices = 'liveFeed' | 'liveCounts' | 'sponsoredSlot';

const otherLanguageRooms = (lang: Language) => LANGUAGES.filter((l) => l !== lang).map(rooms.language);

const event = clientEvents<FeedNode, FeedSocket, FeedServices>();

export const feedNamespace = defineNamespace<FeedNode, FeedSocket, FeedServices>()({
  name: '/feed',
  description:
    'The live feed (CONTRACT §15). Items come in the language of `auth.language` (or the `x-language` header): en, vi or ko, else en. ' +
    'From the handshake on the socket hears the publishes of every user the caller follows (the 5,000 most recently followed).',
  uses: ['liveFeed', 'liveCounts', 'sponsoredSlot'],

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
          // The join's and leave's promises (the cluster subscription) never reject: realtime/rooms-adapter.ts.
          for (const room of state.watched) if (!wanted.has(room)) void socket.leave(room);
          if (wanted.size) void socket.join([...wanted]);
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
        services.sponsoredSlot.rememberArea({ userId: caller.userId, address: '' }, area);
        if (socket.connected) node.viewports.watch(socket, area);
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
    // Every node delivers it to its own sockets whose viewport holds the item; the node that
    // heard the publish asks who may have it and hands both to the others.
    'listing:new': push({
      summary: 'An item inside the watched viewport was published; the item of GET /feeds.',
      payload: feedItemSchema,
      on: 'content.published',
      audience: (published, live) => live.newListing(published),
      sockets: (published, node: FeedNode) => node.viewports.holding(published),
    }),
  },

  // Through the adapter: the follower's sockets on every node join or leave the room.
  rooms: {
    'follow.created': ({ follower_id, following_id }, nsp) => nsp.in(rooms.user(follower_id)).socketsJoin(rooms.author(following_id)),
    'follow.deleted': ({ follower_id, following_id }, nsp) => nsp.in(rooms.user(follower_id)).socketsLeave(rooms.author(following_id)),
  },

  start: (): FeedNode => ({ viewports: new FeedViewportSockets() }),

  // Joined before `connection`, so nothing published from then on is missed.
  async handshake(socket, { app, services }) {
    const auth = socket.handshake.auth as { language?: unknown } | undefined;
    // Not awaited: membership is local at once, and the cluster subscription behind the join's
    // promise never rejects (realtime/rooms-adapter.ts).
    void socket.join(rooms.language(socketLanguage(auth?.language, socket.handshake.headers['x-language'])));
    let ids: string[];
    try {
      ids = await services.liveFeed.followedUploaderIds(socket.data.caller.userId);
    } catch (err) {
      app.log.warn({ err: (err as Error).message }, 'could not read follows for a feed socket');
      // A feed socket that silently hears no followed uploader would look broken: refuse, the client retries.
      throw refuse('unavailable', 'service.error.unavailable');
    }
    if (ids.length && socket.conn.readyState === 'open') void socket.join(ids.map(rooms.author));
  },

  // A socket restored by connection state recovery has its rooms back (followed uploaders,
  // language, watched items) and its viewport in its data; a new one has none of them.
  connect(socket, { app, services, node }): FeedSocket {
    const watched = [...socket.rooms].filter((room) => room.startsWith(rooms.watch('')));
    if (socket.recovered && socket.data.feedArea) node.viewports.watch(socket, socket.data.feedArea);
    // Counts are sent by each node to its own sockets, so no stream holds them to replay: a
    // restored socket is sent its watched items' counts as they are now instead.
    if (socket.recovered && watched.length) {
      services.liveCounts.current(watched.map((room) => room.slice(rooms.watch('').length))).then(
        (list) => list.forEach((stats) => socket.emit('content:stats', stats)),
        (err) => app.log.warn({ err: (err as Error).message }, 'could not send counts to a restored feed socket'),
      );
    }
    socket.on('disconnect', () => node.viewports.unwatch(socket));
    return { watched, watching: Promise.resolve() };
  },
});
