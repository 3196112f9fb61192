// /comments: subscribe to a content item's comments and receive `comment:new` (replies carry
// parentId) for every comment stored on it, from any node; never a comment of someone the
// subscriber's user blocked or is blocked by (CONTRACT §21; the domain's answer, src/live/audience.ts).
// Playback reports (`content:watch`) and `views:update` of subscribed items (CONTRACT §26).
import { subscribePayload } from '../../src/comments/index.js';
import { commentViewSchema } from '../../src/comments/index.js';
import { tooManyRequests } from '../../src/shared/errors.js';
import { playbackAnswer, viewsUpdate, watchPayload } from '../../src/views/index.js';
import { rooms } from '../rooms.js';
import { clientEvents, defineNamespace, push } from '../namespace.js';

/** Content items one socket may follow at once. */
const MAX_SUBSCRIPTIONS_PER_SOCKET = 200;

const event = clientEvents<undefined, undefined, 'comments' | 'views'>();

export const commentsNamespace = defineNamespace<undefined, undefined, 'comments' | 'views'>()({
  name: '/comments',
  description: 'Live comments of content items: subscribe to an item and receive every comment stored on it (at most 200 items per connection).',
  uses: ['comments', 'views'],

  events: {
    'content:subscribe': event({
      summary: 'Receive the comments of a content item (404 when it does not exist or is not visible to the caller).',
      payload: subscribePayload,
      ack: null,
      async handle({ contentId }, { socket, caller, services }) {
        await services.comments.assertContentExists(contentId, caller);
        if (!socket.connected) return;
        const subscribed = [...socket.rooms].filter((r) => r.startsWith(rooms.content(''))).length;
        if (subscribed >= MAX_SUBSCRIPTIONS_PER_SOCKET && !socket.rooms.has(rooms.content(contentId))) {
          throw tooManyRequests('comments.error.too_many_subscriptions', `At most ${MAX_SUBSCRIPTIONS_PER_SOCKET} content items per connection`);
        }
        await socket.join(rooms.content(contentId));
      },
    }),
    'content:watch': event({
      summary: 'A playback report (CONTRACT §26), as POST /content/api/v1/contents/{id}/views: the ack tells whether the playback counts as a view.',
      payload: watchPayload,
      ack: playbackAnswer,
      handle: ({ contentId, ...report }, { caller, services }) => services.views.report(caller, { userId: caller.userId }, contentId, report),
    }),
    'content:unsubscribe': event({
      summary: 'Stop receiving the comments of a content item.',
      payload: subscribePayload,
      ack: null,
      async handle({ contentId }, { socket }) {
        await socket.leave(rooms.content(contentId));
      },
    }),
  },

  pushes: {
    'comment:new': push({
      summary: 'A comment stored on a subscribed content item (SPEC 2.8); replies carry `parentId`.',
      payload: commentViewSchema,
      on: 'comment.created',
      audience: ({ comment }, live) => live.ofActor(comment.author.userId),
      emit: ({ comment }) => ({ to: rooms.content(comment.contentId), data: comment }),
    }),
    'views:update': push({
      summary: "A subscribed item's view_count moved (at most once a second per item and node while it changes; CONTRACT §26).",
      payload: viewsUpdate,
      on: 'views.changed',
      emit: (update) => ({ to: rooms.content(update.contentId), data: update }),
    }),
  },
});
