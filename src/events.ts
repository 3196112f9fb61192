// DomainEvents: every internal event of the service, by name, with its payload. Services publish
// them on `app.events` after their change is committed; realtime/ turns them into pushes
// (CONTRACT §7), jobs may listen too. The compiler checks each publish and each subscriber
// against this map.
import type { MessageView } from './chat/message-view.js';
import type { CommentView } from './comments/comment-view.js';
import type { VideoSummary } from './media/video-summary.js';
import type { EventBus } from './shared/events.js';

export interface DomainEvents {
  /** A session was ended (logout, revocation): sockets of that session must be disconnected. */
  'session.revoked': { userId: string; sessionId: string };
  'follow.created': {
    follower_id: string;
    following_id: string;
    created_at: string;
    follower: { name: string; avatar: string | null };
  };
  /** parentAuthorId is set for replies (the author of the comment replied to). */
  'comment.created': { comment: CommentView; parentAuthorId: string | null };
  'chat.message': { roomId: string; message: MessageView };
  'video.progress': { uploaderId: string; contentId: string; stage: string; percent: number };
  'video.completed': { uploaderId: string; contentId: string; video: VideoSummary };
  'video.failed': { uploaderId: string; contentId: string; error_code: string; message: string };
  'content.created': { contentId: string; uploaderId: string };
  'reaction.changed': { contentId: string; userId: string; reacted: boolean };
}

export type DomainEventBus = EventBus<DomainEvents>;
