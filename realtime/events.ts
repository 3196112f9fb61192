// The client-facing event maps of every Socket.IO namespace (CONTRACT §7), typed for the server
// (and usable by typed clients). Payloads from clients are `unknown` here on purpose: each
// handler validates them with zod before use.
import type { Namespace, Server, Socket } from 'socket.io';
import type { Caller } from '../src/auth/caller.js';
import type { ErrorDetails } from '../src/shared/errors.js';
import type { CommentView } from '../src/comments/comment-view.js';
import type { MessageView } from '../src/chat/message-view.js';
import type { DomainEvents } from '../src/events.js';

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
}
export interface ChatServerEvents {
  'message:new': (message: MessageView) => void;
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
}

export interface ProcessingServerEvents {
  'video:progress': (p: { contentId: string; stage: string; percent: number }) => void;
  'video:completed': (p: { contentId: string; video: DomainEvents['video.completed']['video'] }) => void;
  'video:failed': (p: { contentId: string; error_code: string; message: string }) => void;
}

/** What the handshake leaves on every socket. */
export interface SocketData {
  caller: Caller;
}

/**
 * One Socket.IO server carries every namespace, so its event maps are the union of theirs (a
 * Server's namespaces share its types); each namespace module emits and handles only its own.
 */
export type ClientEvents = ChatClientEvents & CommentsClientEvents;
export type ServerEvents = ChatServerEvents & CommentsServerEvents & NotificationsServerEvents & ProcessingServerEvents;
type InterServerEvents = Record<string, never>;

export type RealtimeServer = Server<ClientEvents, ServerEvents, InterServerEvents, SocketData>;
export type RealtimeNamespace = Namespace<ClientEvents, ServerEvents, InterServerEvents, SocketData>;
export type RealtimeSocket = Socket<ClientEvents, ServerEvents, InterServerEvents, SocketData>;

/** Room names, one place so emitters and joiners agree. */
export const rooms = {
  user: (userId: string) => `user:${userId}`,
  session: (sessionId: string) => `session:${sessionId}`,
  chat: (roomId: string) => `room:${roomId}`,
  content: (contentId: string) => `content:${contentId}`,
};

export const NAMESPACES = ['/', '/chat', '/comments', '/notifications', '/processing'] as const;
