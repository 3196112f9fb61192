// The typed event maps of the Socket.IO server, derived from the namespace declarations
// (realtime/namespaces/*.ts, realtime/namespace.ts): each pushed event's payload type is the
// `z.output` of its declared schema, each client event's ack the output of its ack schema.
// Payloads from clients are `unknown` here on purpose: each handler's payload is parsed with its
// schema before the handler runs. Nothing here is declared by hand. Only the server's own type
// (realtime/server.ts) reads these maps: the declarations and the transport work on the open
// socket types of realtime/socket-types.ts, so that nothing they import leads back here.
import type { z } from 'zod';
import type { Server } from 'socket.io';
import type { namespaces } from './namespaces/index.js';
import type { commonPushes } from './namespace.js';
import type { InterServerEvents, SocketData } from './socket-types.js';

export type { Ack, AckError, AckResult } from './transport/ack.js';
import type { Ack } from './transport/ack.js';

type PayloadOf<P> = P extends { payload: infer S extends z.ZodType } ? z.output<S> : never;
type AckDataOf<E> = E extends { ack: infer A } ? (A extends z.ZodType ? z.output<A> : undefined) : never;

type PushMap<P> = { [K in keyof P & string]: (payload: PayloadOf<P[K]>) => void };

/** On every namespace: `recovery:ready`, a freshly connected socket's first recovery offset (realtime/transport/recovery.ts). */
export type CommonServerEvents = PushMap<typeof commonPushes>;

/** What a namespace's server emits: its pushes, and the common ones. */
export type ServerEventsOf<D extends { pushes: object }> = PushMap<D['pushes']> & CommonServerEvents;

/** What a namespace's clients emit, each with an optional ack callback. */
export type ClientEventsOf<D extends { events: object }> = {
  [K in keyof D['events'] & string]: (payload: unknown, ack?: Ack<AckDataOf<D['events'][K]>>) => void;
};

type Declaration = (typeof namespaces)[number];
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** Distributes over the declarations (a naked type parameter), one map each. */
type EachClient<D> = D extends { events: object } ? ClientEventsOf<D> : never;
type EachServer<D> = D extends { pushes: object } ? ServerEventsOf<D> : never;

/**
 * One Socket.IO server carries every namespace, so its event maps are the intersection of theirs
 * (a Server's namespaces share its types); each namespace's code emits and handles only its own.
 */
export type ClientEvents = UnionToIntersection<EachClient<Declaration>>;
export type ServerEvents = UnionToIntersection<EachServer<Declaration>>;

/** The server as the declarations type it (the namespace code itself works on realtime/socket-types.ts). */
export type TypedRealtimeServer = Server<ClientEvents, ServerEvents, InterServerEvents, SocketData>;
