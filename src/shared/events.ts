// The internal, typed domain-event bus. Domain services publish here after their change is
// committed; realtime/ subscribes and pushes to Socket.IO rooms (which the Redis adapter
// carries to every node), jobs may subscribe too. Listeners never affect the publisher:
// a throwing listener is logged and ignored.
import { EventEmitter } from 'node:events';
import type { Logger } from './logger.js';

export interface VideoSummary {
  resolution: string | null;
  size: number | null;
  duration: number | null;
  original_name: string | null;
  thumbnail_url: string | null;
  status: string;
  content_url: string | null;
  url: string | null;
}

export interface DomainEvents {
  /** A session was ended (logout, revocation): sockets of that session must be disconnected. */
  'session.revoked': { userId: string; sessionId: string };
  'follow.created': {
    follower_id: string;
    following_id: string;
    created_at: string;
    follower: { name: string; avatar: string | null };
  };
  /** `comment` is the SPEC 2.8 comment (with parentId for replies). parentAuthorId is set for replies. */
  'comment.created': { comment: Record<string, unknown> & { contentId: string; parentId: string | null }; parentAuthorId: string | null };
  /** `message` is the SPEC 2.9 message. */
  'chat.message': { roomId: string; message: Record<string, unknown> };
  'video.progress': { uploaderId: string; contentId: string; stage: string; percent: number };
  'video.completed': { uploaderId: string; contentId: string; video: VideoSummary };
  'video.failed': { uploaderId: string; contentId: string; error_code: string; message: string };
  'content.created': { contentId: string; uploaderId: string };
  'reaction.changed': { contentId: string; userId: string; reacted: boolean };
}

export type DomainEventName = keyof DomainEvents;

export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor(private readonly log: Logger) {
    this.emitter.setMaxListeners(100);
  }

  publish<K extends DomainEventName>(name: K, payload: DomainEvents[K]): void {
    for (const listener of this.emitter.listeners(name)) {
      try {
        const result = (listener as (p: DomainEvents[K]) => unknown)(payload);
        if (result instanceof Promise) {
          result.catch((err) => this.log.error({ err, event: name }, 'event listener failed'));
        }
      } catch (err) {
        this.log.error({ err, event: name }, 'event listener failed');
      }
    }
  }

  subscribe<K extends DomainEventName>(name: K, listener: (payload: DomainEvents[K]) => unknown): () => void {
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }
}
