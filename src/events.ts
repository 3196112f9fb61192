// DomainEvents: every internal event of the service, by name, with its payload. Services publish
// them on `app.events` (src/event-bus.ts) after their change is committed; who handles each
// (realtime/ pushes, jobs, the domain's own services) is listed in src/event-handlers.ts. The
// compiler checks each publish and each subscriber against this map.
import type { MessageView } from './chat/message-view.js';
import type { MessageDeletedView, MessageReactionView, ReadView } from './chat/event-views.js';
import type { PresenceView } from './presence/presence-view.js';
import type { CommentView } from './comments/comment-view.js';
import type { VideoSummary } from './content/video-summary.js';
import type { NotificationView } from './notifications/types.js';
import type { FollowCreated } from './follows/follow-event.js';
import type { ContentStats, PublishedItem } from './content/live/schemas.js';
import type { DeliveryView } from './campaigns/delivery-view.js';

export interface DomainEvents {
  /**
   * A session was ended (logout, revocation; src/auth/revocations.ts): sockets of that session must
   * be disconnected. Published on the node that ended it (`here: true`) and on every node that hears
   * of it from there (`here: false`).
   */
  'session.revoked': { userId: string; sessionId: string; here: boolean };
  /** The same object `follow:new` pushes (src/follows/follow-event.ts). */
  'follow.created': FollowCreated;
  /** `blockerId` blocked (`blocked: true`) or unblocked `blockedId` (CONTRACT §21). */
  'block.changed': { blockerId: string; blockedId: string; blocked: boolean };
  /** An unfollow: the live feed stops sending the follower that user's publishes. */
  'follow.deleted': { follower_id: string; following_id: string };
  /** parentAuthorId is set for replies (the author of the comment replied to). */
  'comment.created': { comment: CommentView; parentAuthorId: string | null };
  'chat.message': { roomId: string; message: MessageView };
  /** CONTRACT §18: a message's text was edited (its editedAt is set). */
  'chat.message.edited': { roomId: string; message: MessageView };
  /**
   * A message became a tombstone. `senderId`, whose message it was, keeps the push from either
   * side of a block with them (CONTRACT §21); a deletion that does not name it goes to the room.
   */
  'chat.message.deleted': MessageDeletedView & { senderId?: string };
  /** `actorId` added or removed a reaction; the view holds all of the message's reactions. */
  'chat.reactions.changed': MessageReactionView & { actorId: string };
  /** A member's read position moved forward. */
  'chat.read': ReadView;
  /** A user's first /chat socket (on any node) connected, or their last one went; roomIds: the user's chat rooms. */
  'presence.changed': PresenceView & { roomIds: string[] };
  /** privacy.show_presence was set (PresenceService tells the rooms the user shows presence in). */
  'presence.visibility_changed': { userId: string; shown: boolean };
  'video.progress': { uploaderId: string; contentId: string; stage: string; percent: number };
  'video.completed': { uploaderId: string; contentId: string; video: VideoSummary };
  /** Bytes of a resumable upload landed (at most 4 a second per upload; the last one always comes). */
  'upload.progress': { uploaderId: string; contentId: string; offset: number; length: number };
  'video.failed': { uploaderId: string; contentId: string; error_code: string; message: string };
  'content.created': { contentId: string; uploaderId: string };
  'reaction.changed': { contentId: string; userId: string; reacted: boolean };
  /**
   * What a listing or a detail shows of a live item changed (an edit, attached media, its video's
   * state): cached copies of it and the listing pages that may hold it are stale.
   */
  'content.changed': { contentId: string; uploaderId: string };
  /** A live item was deleted: nothing may serve it from here on. */
  'content.deleted': { contentId: string; uploaderId: string };
  /**
   * Something cached of a user changed: what others see (name, username, avatar, phone, email,
   * role) or the setting a cached session check depends on (privacy.session_timeout).
   */
  'user.changed': { userId: string };
  /** The permissions a role holds (or the roles that exist) changed. */
  'role.permissions.changed': Record<string, never>;
  /** An item went live (its video is processed), in every language (src/content/live/publishes.ts). */
  'content.published': PublishedItem;
  /** An item's counts, due to this node's watchers (at most one a second per item: src/content/live/counts.ts). */
  'content.stats': ContentStats;
  /** A flush of playback reports moved an item's view_count (at most one a second per item and node): `views:update`. */
  'views.changed': { contentId: string; view_count: number };
  /** Items whose view_count moved in the last few seconds: cached copies of them are stale. */
  'views.counted': { contentIds: string[] };
  /** A stored notification claimed for its push (once per row across nodes): `notification:new`. */
  'notification.created': { userId: string; notification: NotificationView };
  /** A delivering campaign's figures for its owner (`campaign:progress`), at most every 10 s per campaign across nodes. */
  'campaign.progress': { userId: string; campaign_id: string; delivery: DeliveryView };
}
