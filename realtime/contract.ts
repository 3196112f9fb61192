// The Socket.IO event contract: per namespace, every event a client emits (its payload schema, the
// very zod schema its handler validates with, and the shape of `data` in its ack) and every event
// the server emits (its payload schema). The AsyncAPI document (realtime/asyncapi.ts) and the typed
// client (clients/typescript) are generated from it.
//
// The checks at the end make the typecheck fail when an event of the typed maps in
// realtime/events.ts has no entry here, when an entry names an event the maps do not have, or when
// a payload or ack schema disagrees with the map's types. Adding an event: add it to its map in
// events.ts AND here.
import { z } from 'zod';
import { joinRoomPayload, roomReadPayload, sendMessageBody, typingPayload } from '../src/chat/schemas.js';
import { messageDeletedViewSchema, messageReactionViewSchema, readViewSchema, typingViewSchema } from '../src/chat/event-views.js';
import { presenceViewSchema } from '../src/presence/presence-view.js';
import { messageViewSchema } from '../src/chat/message-view.js';
import { subscribePayload } from '../src/comments/schemas.js';
import { commentViewSchema } from '../src/comments/comment-view.js';
import { videoSummarySchema } from '../src/media/video-summary.js';
import { areaWatchPayload, contentStatsSchema, contentWatchPayload, feedItemSchema } from '../src/content/live-schemas.js';
import { notificationViewSchema } from '../src/notifications/types.js';
import type * as EventsModule from './events.js';
import type {
  AckResult,
  ChatClientEvents,
  ChatServerEvents,
  ClientEvents,
  CommentsClientEvents,
  CommentsServerEvents,
  FeedClientEvents,
  FeedServerEvents,
  NotificationsServerEvents,
  ProcessingServerEvents,
  RecoveryServerEvents,
  ServerEvents,
} from './events.js';

export interface ClientEventContract {
  summary: string;
  /** What the handler validates the payload with (an invalid one is answered `validation.error.*`). */
  payload: z.ZodType;
  /** The schema of `data` in a successful ack; null when the ack is `{ok: true}` alone. */
  ack: z.ZodType | null;
}

export interface ServerEventContract {
  summary: string;
  payload: z.ZodType;
}

export interface NamespaceContract {
  description: string;
  client: Record<string, ClientEventContract>;
  server: Record<string, ServerEventContract>;
}

const followNew = z.object({
  follower_id: z.string(),
  following_id: z.string(),
  created_at: z.string(),
  follower: z.object({ name: z.string(), avatar: z.string().nullable() }),
});

/** Sent on every namespace to a socket that connects fresh (realtime/recovery.ts). */
const recoveryReady = {
  summary:
    'Hands a freshly connected socket its first recovery offset, so it can recover (CONTRACT §18) even if nothing else reached it before its connection dropped. Clients need not handle it.',
  payload: z.string().describe('The newest recovery offset this node knows for the namespace.'),
};

export const realtimeContract = {
  '/chat': {
    description:
      'Chat rooms (CONTRACT §7, §8). On connect the socket is already in every room the caller is a member of; ' +
      'rooms made later are joined with `room:join`. A message sent here or over REST is stored once and pushed to every member on every node.',
    client: {
      'room:join': { summary: 'Join a chat room the caller is a member of (403 `chat.error.not_member` otherwise).', payload: joinRoomPayload, ack: null },
      'room:leave': { summary: 'Stop receiving the messages of a room on this socket.', payload: joinRoomPayload, ack: null },
      'message:send': { summary: 'Send a message (the same operation as POST /sns/api/v1/chat/messages); the ack carries the stored message.', payload: sendMessageBody, ack: messageViewSchema },
      'room:read': {
        summary: "Store the caller's last read message of a room (the same operation as POST /sns/api/v1/chat/rooms/{roomId}/read; never moves backwards); the ack carries the stored position.",
        payload: roomReadPayload,
        ack: readViewSchema,
      },
      'typing:start': {
        summary: 'The caller is typing in a room (members only): the others get `typing {typing: true}`; it ends by itself unless renewed within 6 s. At most 10 typing events per 10 s per socket (429 `rate_limit.error.exceeded`).',
        payload: typingPayload,
        ack: null,
      },
      'typing:stop': { summary: 'The caller stopped typing in a room: the others get `typing {typing: false}`.', payload: typingPayload, ack: null },
    },
    server: {
      'recovery:ready': recoveryReady,
      'message:new': { summary: 'A message stored in one of the rooms this socket is in (SPEC 2.9).', payload: messageViewSchema },
      'message:updated': { summary: 'A message of the room was edited by its sender (`editedAt` set).', payload: messageViewSchema },
      'message:deleted': { summary: 'A message of the room was deleted by its sender; the history shows it as `{_id, roomId, deleted: true, createdAt}`.', payload: messageDeletedViewSchema },
      'message:reaction': { summary: 'The reactions of a message of the room changed: all of them, by emoji.', payload: messageReactionViewSchema },
      read: { summary: "Another member's read position moved forward (never sent for the caller's own reads).", payload: readViewSchema },
      typing: { summary: 'Another member started or stopped typing in the room (also `typing: false` when a start was not renewed within 6 s, or the typist disconnected).', payload: typingViewSchema },
      presence: {
        summary: "A user who shares a room with the caller came online (their first /chat socket on any node) or went offline (their last one went, or their node stopped heartbeating); sent once even when several rooms are shared.",
        payload: presenceViewSchema,
      },
    },
  },
  '/comments': {
    description: 'Live comments of content items: subscribe to an item and receive every comment stored on it (at most 200 items per connection).',
    client: {
      'content:subscribe': { summary: 'Receive the comments of a content item (404 when it does not exist or is not visible to the caller).', payload: subscribePayload, ack: null },
      'content:unsubscribe': { summary: 'Stop receiving the comments of a content item.', payload: subscribePayload, ack: null },
    },
    server: {
      'recovery:ready': recoveryReady,
      'comment:new': { summary: 'A comment stored on a subscribed content item (SPEC 2.8); replies carry `parentId`.', payload: commentViewSchema },
    },
  },
  '/notifications': {
    description: "The caller's own notifications: each socket is in the caller's room from the handshake on; nothing to emit.",
    client: {},
    server: {
      'recovery:ready': recoveryReady,
      'follow:new': { summary: 'Someone followed the caller.', payload: followNew },
      'comment:reply': { summary: "Someone replied to one of the caller's comments (never for the caller's own reply).", payload: commentViewSchema },
      'notification:new': {
        summary: 'A notification was stored for the caller (CONTRACT §17; the same object the inbox lists). A bumped reaction group comes again with the same id.',
        payload: notificationViewSchema,
      },
    },
  },
  '/processing': {
    description: "The caller's resumable uploads and the processing of their videos: each socket is in the caller's room from the handshake on; nothing to emit.",
    client: {},
    server: {
      'recovery:ready': recoveryReady,
      'video:progress': {
        summary: 'A processing stage of one of the caller\'s videos moved on.',
        payload: z.object({ contentId: z.string(), stage: z.string(), percent: z.number() }),
      },
      'video:completed': {
        summary: "One of the caller's videos is processed: `video` is its video object (SPEC 2.2, `status: completed`).",
        payload: z.object({ contentId: z.string(), video: videoSummarySchema }),
      },
      'video:failed': {
        summary: "One of the caller's videos could not be processed.",
        payload: z.object({ contentId: z.string(), error_code: z.string(), message: z.string() }),
      },
      'upload:progress': {
        summary:
          "Bytes of one of the caller's resumable uploads (CONTRACT §24) landed: `offset` of `length` bytes are stored. " +
          'At most 4 a second per upload; the last one (offset = length) always comes.',
        payload: z.object({ contentId: z.string(), offset: z.number().int(), length: z.number().int() }),
      },
    },
  },
  '/feed': {
    description:
      'The live feed (CONTRACT §15). Items come in the language of `auth.language` (or the `x-language` header): en, vi or ko, else en. ' +
      'From the handshake on the socket hears the publishes of every user the caller follows (the 5,000 most recently followed).',
    client: {
      'content:watch': {
        summary: 'Watch the counts of up to 50 items (replaces the previous set; [] stops). Ids of items the caller may not see are left out.',
        payload: contentWatchPayload,
        ack: null,
      },
      'area:watch': {
        summary: 'Watch a map viewport (the viewport of GET /completed at latitude, longitude, zoom_level); replaces the previous one.',
        payload: areaWatchPayload,
        ack: null,
      },
    },
    server: {
      'recovery:ready': recoveryReady,
      'feed:new': { summary: 'A user the caller follows published an item (its video is processed); the item of GET /feeds.', payload: feedItemSchema },
      'content:stats': {
        summary: 'The counts of a watched item changed; at most one per item per second, the last one after a burst carrying the final counts.',
        payload: contentStatsSchema,
      },
      'listing:new': { summary: 'An item inside the watched viewport was published; the item of GET /feeds.', payload: feedItemSchema },
    },
  },
} satisfies Record<string, NamespaceContract>;

export type RealtimeContract = typeof realtimeContract;
export type ContractNamespace = keyof RealtimeContract;

// ---- Compile-time agreement with the typed maps of realtime/events.ts -------------------------

/**
 * Each namespace's typed maps. A namespace with no client events uses `NoEvents`. A new namespace
 * goes here too; `EveryEventCovered` below catches an event of the unions missing from the contract.
 */
type NoEvents = Record<never, never>;
interface NamespaceMaps {
  '/chat': { client: ChatClientEvents; server: ChatServerEvents & RecoveryServerEvents };
  '/comments': { client: CommentsClientEvents; server: CommentsServerEvents & RecoveryServerEvents };
  '/notifications': { client: NoEvents; server: NotificationsServerEvents & RecoveryServerEvents };
  '/processing': { client: NoEvents; server: ProcessingServerEvents & RecoveryServerEvents };
  '/feed': { client: FeedClientEvents; server: FeedServerEvents & RecoveryServerEvents };
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Fn = (...args: never[]) => void;
/** What a client event's ack callback is called with. */
type AckResultOf<F> = F extends (payload: never, ack?: (result: infer R) => void) => void ? R : never;
type AckDataOf<C> = C extends { ack: infer S } ? (S extends z.ZodType ? z.output<S> : undefined) : never;

/** For every event of a map: does the contract entry's type agree? (`true` or a description of the mismatch) */
type ClientAgreement<Map, Entries> = {
  [K in keyof Map | keyof Entries]: K extends keyof Map
    ? K extends keyof Entries
      ? Map[K] extends Fn
        ? Same<AckResultOf<Map[K]>, AckResult<AckDataOf<Entries[K]>>> extends true
          ? true
          : { ackDisagrees: K }
        : { notAFunction: K }
      : { missingFromContract: K }
    : { notInTypedMap: K };
};
type ServerAgreement<Map, Entries> = {
  [K in keyof Map | keyof Entries]: K extends keyof Map
    ? K extends keyof Entries
      ? Map[K] extends Fn
        ? Entries[K] extends { payload: infer S extends z.ZodType }
          ? Same<Parameters<Map[K]>[0], z.output<S>> extends true
            ? true
            : { payloadDisagrees: K }
          : { noPayload: K }
        : { notAFunction: K }
      : { missingFromContract: K }
    : { notInTypedMap: K };
};

type AllTrue<T> = { [K in keyof T]: T[K] extends true ? true : T[K] };
type Agreement = {
  [N in keyof NamespaceMaps | ContractNamespace]: N extends keyof NamespaceMaps
    ? N extends ContractNamespace
      ? {
          client: AllTrue<ClientAgreement<NamespaceMaps[N]['client'], RealtimeContract[N]['client']>>;
          server: AllTrue<ServerAgreement<NamespaceMaps[N]['server'], RealtimeContract[N]['server']>>;
        }
      : { namespaceMissingFromContract: N }
    : { namespaceMissingFromNamespaceMaps: N };
};
type Expected = {
  [N in keyof Agreement]: Agreement[N] extends { client: infer C; server: infer S }
    ? { client: { [K in keyof C]: true }; server: { [K in keyof S]: true } }
    : never;
};

/** `T` itself when it is assignable to `U`; a type error naming the difference otherwise. */
type Assignable<T extends U, U> = T;
// A type error on the next line names the event (or namespace) that disagrees.
export type EventsAgree = Assignable<Expected, Agreement>;

/** Every event of the server-wide unions (what `io` can emit and handle) has a contract entry. */
type ContractClientEvents = { [N in ContractNamespace]: keyof RealtimeContract[N]['client'] }[ContractNamespace];
type ContractServerEvents = { [N in ContractNamespace]: keyof RealtimeContract[N]['server'] }[ContractNamespace];
type EveryEventCovered = Exclude<keyof ClientEvents, ContractClientEvents> | Exclude<keyof ServerEvents, ContractServerEvents>;
// A type error here names an event of ClientEvents/ServerEvents with no contract entry.
const everyEventCovered: [EveryEventCovered] extends [never] ? true : { missingFromContract: EveryEventCovered } = true;
void everyEventCovered;

/** Every namespace the server opens (NAMESPACES) is in the contract, except the root one, which carries no event. */
type UndocumentedNamespaces = Exclude<(typeof EventsModule.NAMESPACES)[number], ContractNamespace | '/'>;
// A type error here names a namespace of NAMESPACES with no contract entry.
const everyNamespaceCovered: [UndocumentedNamespaces] extends [never] ? true : { namespaceMissingFromContract: UndocumentedNamespaces } = true;
void everyNamespaceCovered;
