// /notifications: each user's sockets sit in their own room (joined at the handshake) and get
// `notification:new` for every stored notification (CONTRACT §17), and, as before, `follow:new`
// when someone follows them and `comment:reply` when someone answers their comment, when their
// settings let those through (the domain's answer: src/live/audience.ts). Whether a user has a
// socket here (for Web Push) is a port of the door, realtime/ports.ts.
import { commentViewSchema } from '../../src/comments/index.js';
import { notificationViewSchema } from '../../src/notifications/index.js';
import { followCreatedSchema } from '../../src/follows/index.js';
import { campaignProgressSchema } from '../../src/campaigns/index.js';
import { rooms } from '../rooms.js';
import { defineNamespace, push } from '../namespace.js';

export const notificationsNamespace = defineNamespace()({
  name: '/notifications',
  description: "The caller's own notifications: each socket is in the caller's room from the handshake on; nothing to emit.",
  uses: [],
  events: {},
  pushes: {
    'follow:new': push({
      summary: 'Someone followed the caller.',
      payload: followCreatedSchema,
      on: 'follow.created',
      audience: (follow, live) => live.followNotice(follow),
      emit: (follow) => ({ to: rooms.user(follow.following_id), data: follow }),
    }),
    'comment:reply': push({
      summary: "Someone replied to one of the caller's comments (never for the caller's own reply).",
      payload: commentViewSchema,
      on: 'comment.created',
      audience: (created, live) => live.replyNotice(created),
      emit: ({ comment, parentAuthorId }) => (parentAuthorId ? { to: rooms.user(parentAuthorId), data: comment } : null),
    }),
    // Published once per campaign and 10 s across nodes (the node that claimed it); the adapter
    // carries it to the owner's sockets on every node.
    'campaign:progress': push({
      summary: "What one of the caller's delivering campaigns delivered so far (CONTRACT §26), at most every 10 s per campaign.",
      payload: campaignProgressSchema,
      on: 'campaign.progress',
      emit: ({ userId, campaign_id, delivery }) => ({ to: rooms.user(userId), data: { campaign_id, delivery } }),
    }),
    // Published once per stored notification, on the node that claimed it; the adapter carries
    // the emit to the user's sockets on every node.
    'notification:new': push({
      summary:
        'A notification was stored for the caller (CONTRACT §17; the same object the inbox lists). A bumped reaction group comes again with the same id.',
      payload: notificationViewSchema,
      on: 'notification.created',
      emit: ({ userId, notification }) => ({ to: rooms.user(userId), data: notification }),
    }),
  },
});
