// /comments: subscribe to a content item's comments and receive `comment:new` (replies carry
// parentId) for every comment stored on it, from any node.
import type { AppContext } from '../../src/context.js';
import type { CommentService } from '../../src/comments/service.js';
import { subscribePayload } from '../../src/comments/schemas.js';
import { tooManyRequests } from '../../src/shared/errors.js';
import { rooms } from '../events.js';
import type { NamespaceEdge } from '../socket-edge.js';
import type { BlockService } from '../../src/blocks/service.js';
import { blockerRooms, inOrder } from '../blocked-rooms.js';

/** Content items one socket may follow at once. */
const MAX_SUBSCRIPTIONS_PER_SOCKET = 200;

export function registerCommentsNamespace(edge: NamespaceEdge, app: AppContext, comments: CommentService, blocks: BlockService): () => void {
  const { nsp } = edge;
  const push = inOrder(app.log, 'comment:new');
  edge.onConnection((socket, on) => {
    on('content:subscribe', subscribePayload, async ({ contentId }) => {
      await comments.assertContentExists(contentId, socket.data.caller);
      if (!socket.connected) return;
      const subscribed = [...socket.rooms].filter((r) => r.startsWith('content:')).length;
      if (subscribed >= MAX_SUBSCRIPTIONS_PER_SOCKET && !socket.rooms.has(rooms.content(contentId))) {
        throw tooManyRequests('comments.error.too_many_subscriptions', `At most ${MAX_SUBSCRIPTIONS_PER_SOCKET} content items per connection`);
      }
      await socket.join(rooms.content(contentId));
    });
    on('content:unsubscribe', subscribePayload, async ({ contentId }) => {
      await socket.leave(rooms.content(contentId));
    });
  });

  // Not to those who blocked the author (CONTRACT §21).
  return app.events.subscribe('comment.created', ({ comment }) =>
    push(async () => {
      const except = await blockerRooms(blocks, comment.author.userId);
      nsp.to(rooms.content(comment.contentId)).except(except).emit('comment:new', comment);
    }),
  );
}
