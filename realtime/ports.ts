// What the realtime door offers the domain's long-lived services, which the composition root
// (service.ts) starts on it: the door knows this node's sockets and how to reach the other nodes;
// the domain decides what to do with them.
// - /feed: whether a socket of this node watches an item's counts, and the word between nodes
//   that an item's counts changed (src/content/live/counts.ts);
// - /notifications: whether a user has a socket on any node (src/push/service.ts sends Web Push
//   only to users with none).
import type { LivePorts } from '../src/services.js';
import type { RealtimeServer } from './socket-types.js';
import { rooms } from './rooms.js';

/** How long a presence question may wait for the other nodes before Web Push sends anyway. */
const PRESENCE_TIMEOUT_MS = 3_000;

export function realtimePorts(io: RealtimeServer, clustered: boolean): LivePorts {
  const feed = io.of('/feed');
  const notifications = io.of('/notifications');
  return {
    countWatchers: {
      watched: (contentId) => Boolean(feed.adapter.rooms.get(rooms.watch(contentId))?.size),
      // With Redis other nodes exist and hear serverSideEmit; the in-memory adapter has no peers.
      tellOthers: (contentId) => {
        if (clustered) feed.serverSideEmit('feed:counts-changed', contentId);
      },
      heardFromOthers: (listener) => {
        feed.on('feed:counts-changed', listener);
        return () => void feed.off('feed:counts-changed', listener);
      },
    },
    // Asked through the adapter, so a socket on any node counts.
    userConnected: async (userId) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('presence timeout')), PRESENCE_TIMEOUT_MS);
      });
      try {
        const sockets = await Promise.race([notifications.in(rooms.user(userId)).fetchSockets(), timeout]);
        return sockets.length > 0;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
