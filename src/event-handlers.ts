// Every domain event (src/events.ts) and every handler of it on a running node, in one table:
// who reacts to what is runtime wiring no import shows, so it is declared here and nowhere else.
// The bus (src/event-bus.ts) subscribes a handler only under a name listed for its event and
// throws on any other; test/foundation/event-handlers.test.ts boots a node and checks that every
// entry is subscribed and nothing else is.
//
// Kinds: `domain`, a service of src/ keeping its own state right; `door`, realtime/ turning the
// event into a push or into room membership; `job`, a worker of jobs/. A door's push is named
// `<namespace> <push>` (its declaration in realtime/namespaces/); other handlers by their module.
import type { DomainEvents } from './events.js';

export type HandlerKind = 'domain' | 'door' | 'job';

export type DomainEventName = keyof DomainEvents & string;

export const EVENT_HANDLERS = {
  'session.revoked': {
    'realtime session-end': 'door',
  },
  'follow.created': {
    'read-model': 'domain',
    '/notifications follow:new': 'door',
    '/feed rooms': 'door',
  },
  'block.changed': {
    'read-model': 'domain',
  },
  'follow.deleted': {
    'read-model': 'domain',
    '/feed rooms': 'door',
  },
  'comment.created': {
    'read-model': 'domain',
    'live-counts': 'domain',
    '/comments comment:new': 'door',
    '/notifications comment:reply': 'door',
  },
  'chat.message': {
    '/chat message:new': 'door',
  },
  'chat.message.edited': {
    '/chat message:updated': 'door',
  },
  'chat.message.deleted': {
    '/chat message:deleted': 'door',
  },
  'chat.reactions.changed': {
    '/chat message:reaction': 'door',
  },
  'chat.read': {
    '/chat read': 'door',
  },
  'presence.changed': {
    '/chat presence': 'door',
  },
  'presence.visibility_changed': {
    presence: 'domain',
  },
  'video.progress': {
    '/processing video:progress': 'door',
  },
  'video.completed': {
    'read-model': 'domain',
    'live-publishes': 'domain',
    '/processing video:completed': 'door',
    'saved-search-matching': 'job',
    'job-metrics': 'job',
  },
  'upload.progress': {
    '/processing upload:progress': 'door',
  },
  'video.failed': {
    'read-model': 'domain',
    '/processing video:failed': 'door',
    'job-metrics': 'job',
  },
  'content.created': {
    'read-model': 'domain',
  },
  'reaction.changed': {
    'read-model': 'domain',
    'live-counts': 'domain',
  },
  'content.changed': {
    'read-model': 'domain',
  },
  'content.deleted': {
    'read-model': 'domain',
  },
  'user.changed': {
    'read-model': 'domain',
  },
  'role.permissions.changed': {
    'read-model': 'domain',
  },
  'content.published': {
    '/feed feed:new': 'door',
    '/feed listing:new': 'door',
  },
  'content.stats': {
    '/feed content:stats': 'door',
  },
  'notification.created': {
    '/notifications notification:new': 'door',
  },
  'views.changed': {
    '/comments views:update': 'door',
  },
  'views.counted': {
    'read-model': 'domain',
  },
  'campaign.progress': {
    '/notifications campaign:progress': 'door',
  },
} as const satisfies { [K in DomainEventName]: Record<string, HandlerKind> };

/** The names a handler of `K` may subscribe under. */
export type HandlerName<K extends DomainEventName> = keyof (typeof EVENT_HANDLERS)[K] & string;

/** The kind of `handler` of `event`, or undefined when the table does not list the pair. */
export function handlerKind(event: string, handler: string): HandlerKind | undefined {
  const handlers: Record<string, HandlerKind> | undefined = (EVENT_HANDLERS as Record<string, Record<string, HandlerKind>>)[event];
  return handlers && Object.hasOwn(handlers, handler) ? handlers[handler] : undefined;
}
