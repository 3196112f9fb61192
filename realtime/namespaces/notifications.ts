// /notifications: each user's sockets sit in their own room (joined at the handshake) and get
// `follow:new` when someone follows them and `comment:reply` when someone answers their comment.
import type { AppContext } from '../../src/context.js';
import { rooms, type RealtimeNamespace } from '../events.js';

export function registerNotificationsNamespace(nsp: RealtimeNamespace, app: AppContext): () => void {
  const unsubscribeFollow = app.events.subscribe('follow.created', (follow) => {
    nsp.to(rooms.user(follow.following_id)).emit('follow:new', follow);
  });
  const unsubscribeReply = app.events.subscribe('comment.created', ({ comment, parentAuthorId }) => {
    // Nobody is told about their own reply.
    if (parentAuthorId && parentAuthorId !== comment.author.userId) {
      nsp.to(rooms.user(parentAuthorId)).emit('comment:reply', comment);
    }
  });
  return () => {
    unsubscribeFollow();
    unsubscribeReply();
  };
}
