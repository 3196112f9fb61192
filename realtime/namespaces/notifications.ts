// /notifications: each user's sockets sit in their own room (joined at the handshake) and get
// `notification:new` for every stored notification (CONTRACT §17), and, as before, `follow:new`
// when someone follows them and `comment:reply` when someone answers their comment. It also
// tells Web Push whether a user is connected, so pushes go only to users with no socket here.
import type { AppContext } from '../../src/context.js';
import type { Services } from '../../src/services.js';
import { rooms } from '../events.js';
import type { NamespaceEdge } from '../socket-edge.js';

/** How long a presence question may wait for the other nodes before Web Push sends anyway. */
const PRESENCE_TIMEOUT_MS = 3_000;

export function registerNotificationsNamespace({ nsp }: NamespaceEdge, app: AppContext, services: Pick<Services, 'notifications' | 'push'>): () => void {
  const { notifications, push } = services;
  // The legacy pushes obey the same settings toggle as their notification type (`follow`,
  // `reply`): a type turned off is not pushed in any form.
  const emitIfWanted = (userId: string, type: 'follow' | 'reply', emit: () => void) => {
    notifications.wants(userId, type).then(
      (wanted) => wanted && emit(),
      (err) => app.log.warn({ err }, 'settings unreadable; follow:new or comment:reply not pushed'),
    );
  };
  const stops = [
    app.events.subscribe('follow.created', (follow) => {
      emitIfWanted(follow.following_id, 'follow', () => nsp.to(rooms.user(follow.following_id)).emit('follow:new', follow));
    }),
    app.events.subscribe('comment.created', ({ comment, parentAuthorId }) => {
      // Nobody is told about their own reply.
      if (parentAuthorId && parentAuthorId !== comment.author.userId) {
        emitIfWanted(parentAuthorId, 'reply', () => nsp.to(rooms.user(parentAuthorId)).emit('comment:reply', comment));
      }
    }),
    // Published once per stored notification, on the node that claimed it; the adapter carries
    // the emit to the user's sockets on every node.
    app.events.subscribe('notification.created', ({ userId, notification }) => {
      nsp.to(rooms.user(userId)).emit('notification:new', notification);
    }),
  ];
  // Asked through the adapter, so a socket on any node counts.
  push.usePresence(async (userId) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('presence timeout')), PRESENCE_TIMEOUT_MS);
    });
    try {
      const sockets = await Promise.race([nsp.in(rooms.user(userId)).fetchSockets(), timeout]);
      return sockets.length > 0;
    } finally {
      clearTimeout(timer);
    }
  });
  return () => stops.forEach((stop) => stop());
}
