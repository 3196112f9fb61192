// The client-facing event maps of every Socket.IO namespace (CONTRACT §7), typed for the server
// (and usable by typed clients). Payloads from clients are `unknown` here on purpose: each
// handler validates them with zod before use.
import type { Namespace, Server, Socket } from 'socket.io';
import type { Caller } from '../src/auth/caller.js';
import type { ErrorDetails } from '../src/shared/errors.js';
import type { CommentView } from '../src/comments/comment-view.js';
import type { MessageView } from '../src/chat/message-view.js';
import type { MessageDeletedView, MessageReactionView, ReadView, TypingView } from '../src/chat/event-views.js';
import type { PresenceView } from '../src/presence/presence-view.js';
import type { DomainEvents } from '../src/events.js';
import type { NotificationView } from '../src/notifications/types.js';
import type { AreaWatch, ContentStats, FeedItem } from '../src/content/live-schemas.js';
import type { PublishedItem } from '../src/content/live-feed.js';

export interface AckError {
  ok: false;
  error_code: string;
  message: string;
  details?: ErrorDetails;
}
export type AckResult<T = undefined> = ([T] extends [undefined] ? { ok: true } : { ok: true; data: T }) | AckError;
export type Ack<T = undefined> = (result: AckResult<T>) => void;

export interface ChatClientEvents {
  'room:join': (payload: unknown, ack?: Ack) => void;
  'room:leave': (payload: unknown, ack?: Ack) => void;
  'message:send': (payload: unknown, ack?: Ack<MessageView>) => void;
  'typing:start': (payload: unknown, ack?: Ack) => void;
  'typing:stop': (payload: unknown, ack?: Ack) => void;
  'room:read': (payload: unknown, ack?: Ack<ReadView>) => void;
}
export interface ChatServerEvents {
  'message:new': (message: MessageView) => void;
  'message:updated': (message: MessageView) => void;
  'message:deleted': (deleted: MessageDeletedView) => void;
  'message:reaction': (reactions: MessageReactionView) => void;
  read: (read: ReadView) => void;
  typing: (typing: TypingView) => void;
  presence: (presence: PresenceView) => void;
}

export interface CommentsClientEvents {
  'content:subscribe': (payload: unknown, ack?: Ack) => void;
  'content:unsubscribe': (payload: unknown, ack?: Ack) => void;
}
export interface CommentsServerEvents {
  'comment:new': (comment: CommentView) => void;
}

export interface NotificationsServerEvents {
  'follow:new': (follow: DomainEvents['follow.created']) => void;
  'comment:reply': (comment: CommentView) => void;
  'notification:new': (notification: NotificationView) => void;
}

export interface ProcessingServerEvents {
  'video:progress': (p: { contentId: string; stage: string; percent: number }) => void;
  'video:completed': (p: { contentId: string; video: DomainEvents['video.completed']['video'] }) => void;
  'video:failed': (p: { contentId: string; error_code: string; message: string }) => void;
  'upload:progress': (p: { contentId: string; offset: number; length: number }) => void;
}

export interface FeedClientEvents {
  'content:watch': (payload: unknown, ack?: Ack) => void;
  'area:watch': (payload: unknown, ack?: Ack) => void;
}
export interface FeedServerEvents {
  'feed:new': (item: FeedItem) => void;
  'content:stats': (stats: ContentStats) => void;
  'listing:new': (item: FeedItem) => void;
}
/** Between nodes (serverSideEmit): each node delivers the live feed to its own sockets. */
export interface FeedInterServerEvents {
  'feed:published': (item: PublishedItem) => void;
  'feed:counts-changed': (contentId: string) => void;
}

/** On every namespace: a freshly connected socket's first recovery offset (realtime/recovery.ts). */
export interface RecoveryServerEvents {
  'recovery:ready': (offset: string) => void;
}

/** What the handshake leaves on every socket. */
export interface SocketData {
  caller: Caller;
  /** /feed: the viewport of the last `area:watch`, kept with the session so a recovered socket keeps it. */
  feedArea?: AreaWatch;
}

/**
 * One Socket.IO server carries every namespace, so its event maps are the union of theirs (a
 * Server's namespaces share its types); each namespace module emits and handles only its own.
 */
export type ClientEvents = ChatClientEvents & CommentsClientEvents & FeedClientEvents;
export type ServerEvents = ChatServerEvents & CommentsServerEvents & NotificationsServerEvents & ProcessingServerEvents & FeedServerEvents & RecoveryServerEvents;
type InterServerEvents = FeedInterServerEvents;

export type RealtimeServer = Server<ClientEvents, ServerEvents, InterServerEvents, SocketData>;
export type RealtimeNamespace = Namespace<ClientEvents, ServerEvents, InterServerEvents, SocketData>;
export type RealtimeSocket = Socket<ClientEvents, ServerEvents, InterServerEvents, SocketData>;

/** Room names, one place so emitters and joiners agree. */
export const rooms = {
  user: (userId: string) => `user:${userId}`,
  session: (sessionId: string) => `session:${sessionId}`,
  chat: (roomId: string) => `room:${roomId}`,
  content: (contentId: string) => `content:${contentId}`,
  /** /feed: the followers of an uploader. */
  author: (userId: string) => `author:${userId}`,
  /** /feed: the watchers of an item's counts. */
  watch: (contentId: string) => `watch:${contentId}`,
  /** /feed: the sockets that read items in one language. */
  language: (lang: string) => `lang:${lang}`,
};

export const NAMESPACES = ['/', '/chat', '/comments', '/notifications', '/processing', '/feed'] as const;
