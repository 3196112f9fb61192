// The client-facing event maps of every Socket.IO namespace (CONTRACT §7), typed for the server
// (and usable by typed clients). Payloads from clients are `unknown` here on purpose: each
// handler validates them with zod before use.
import type { Namespace, Server, Socket } from 'socket.io';
import type { Caller } from '../src/auth/caller.js';
import type { ErrorDetails } from '../src/shared/errors.js';
import type { CommentView } from '../src/comments/service.js';
import type { MessageView } from '../src/chat/service.js';
import type { DomainEvents } from '../src/shared/events.js';

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

export type NoClientEvents = Record<string, never>;

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

export type ChatNamespace = Namespace<ChatClientEvents, ChatServerEvents, Record<string, never>, SocketData>;
export type ChatSocket = Socket<ChatClientEvents, ChatServerEvents, Record<string, never>, SocketData>;
export type CommentsNamespace = Namespace<CommentsClientEvents, CommentsServerEvents, Record<string, never>, SocketData>;
export type CommentsSocket = Socket<CommentsClientEvents, CommentsServerEvents, Record<string, never>, SocketData>;
export type NotificationsNamespace = Namespace<NoClientEvents, NotificationsServerEvents, Record<string, never>, SocketData>;
export type ProcessingNamespace = Namespace<NoClientEvents, ProcessingServerEvents, Record<string, never>, SocketData>;
export type RealtimeServer = Server<NoClientEvents, Record<string, never>, Record<string, never>, SocketData>;

/** Room names, one place so emitters and joiners agree. */
export const rooms = {
  user: (userId: string) => `user:${userId}`,
  session: (sessionId: string) => `session:${sessionId}`,
  chat: (roomId: string) => `room:${roomId}`,
  content: (contentId: string) => `content:${contentId}`,
};

export const NAMESPACES = ['/', '/chat', '/comments', '/notifications', '/processing'] as const;
