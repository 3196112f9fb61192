// The door's own bookkeeping for `listing:new` on /feed: which of this node's sockets watch which
// map viewport (`area:watch`). Node-local on purpose: a socket lives on one node, and every node
// is handed each published item (realtime/namespace.ts, `sockets` pushes), so each looks up its
// own sockets only. Who may have the item is not decided here (src/live/audience.ts).
import type { AreaWatch } from '../../src/content/index.js';
import type { PublishedItem } from '../../src/content/index.js';
import { viewportAround } from '../../src/content/index.js';
import { LANGUAGES, DEFAULT_LANGUAGE, type Language } from '../../src/content/index.js';
import type { RealtimeSocket } from '../socket-types.js';
import { rooms } from '../rooms.js';
import type { SocketEmit } from '../namespace.js';
import { ViewportIndex } from './viewport-index.js';

/** The language a socket reads, from the room it joined at the handshake. */
export const languageOf = (socket: RealtimeSocket): Language => LANGUAGES.find((lang) => socket.rooms.has(rooms.language(lang))) ?? DEFAULT_LANGUAGE;

export class FeedViewportSockets {
  private readonly index = new ViewportIndex<RealtimeSocket>();

  /** Files the socket under the viewport of `area`, replacing its earlier one; kept in its data for recovery. */
  watch(socket: RealtimeSocket, area: AreaWatch): void {
    socket.data.feedArea = area;
    this.index.watch(socket, viewportAround(area.latitude, area.longitude, area.zoom_level));
  }

  unwatch(socket: RealtimeSocket): void {
    this.index.unwatch(socket);
  }

  /** This node's sockets whose viewport holds the item, each with the item in its language. */
  holding(published: PublishedItem): SocketEmit<PublishedItem['items'][Language]>[] {
    if (published.latitude === null || published.longitude === null) return [];
    return this.index.containing(published.latitude, published.longitude).map((socket) => ({ socket, data: published.items[languageOf(socket)] }));
  }
}
