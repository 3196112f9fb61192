// How every Socket.IO namespace is declared: once, like a REST route (http/route.ts), in
// realtime/namespaces/<name>.ts:
// - its client events: the payload schema the handler validates with, the schema of the ack's
//   `data` (or null: the ack is `{ok: true}`), and the handler;
// - its pushes: the payload schema, and for a push that answers a domain event, the event, whom the
//   domain lets have it (`audience`: a service's answer, src/live/audience.ts) and where it goes
//   (`emit`: the rooms and the data, the door's only part). A push without `on` is sent by the
//   namespace's own code (typing, node-local deliveries);
// - its own handshake step, what each connecting socket keeps (`connect`), and what one node
//   shares between its sockets (`start`, undone by `stop`).
// From these the typed event maps (realtime/events.ts), the event contract and the AsyncAPI
// document (realtime/contract.ts, asyncapi.ts) and the subscriptions to the domain bus (`mount`,
// below) are derived; nothing else declares an event.
import { z } from 'zod';
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';
import type { Caller } from '../src/auth/caller.js';
import type { DomainEventBus, DomainEvents } from '../src/events.js';
import { EVERYONE, type Audience, type LiveAudience } from '../src/live/audience.js';
import type { RealtimeNamespace, RealtimeSocket } from './events.js';
import type { NamespaceEdge, Undo } from './socket-edge.js';
import { inOrder } from './in-order.js';
import { rooms } from './rooms.js';

export type NamespaceName = `/${string}`;
type DomainEventName = keyof DomainEvents & string;

/** What one node gives a namespace's code. */
export interface NodeContext<Node> {
  nsp: RealtimeNamespace;
  app: AppContext;
  services: Services;
  /** What `start` made for this node (undefined without `start`). */
  node: Node;
}

/** What a client event's handler gets besides its payload. */
export interface SocketContext<Node, State> extends NodeContext<Node> {
  socket: RealtimeSocket;
  /** The socket's caller as it is now (read again before each event). */
  caller: Caller;
  /** What `connect` made for this socket (undefined without `connect`). */
  state: State;
}

/** The ack's `data`: the ack schema's output, or nothing (the ack is `{ok: true}`) without one. */
export type AckData<A> = A extends z.ZodType ? z.output<A> : void;

export interface ClientEvent<P extends z.ZodType, A extends z.ZodType | null, Node, State> {
  summary: string;
  /** What the handler validates the payload with (an invalid one is answered `validation.error.*`). */
  payload: P;
  /** The schema of `data` in a successful ack; null when the ack is `{ok: true}` alone. */
  ack: A;
  handle(payload: z.output<P>, ctx: SocketContext<Node, State>): Promise<AckData<A>>;
}

type AnyClientEvent<Node, State> = ClientEvent<z.ZodType, z.ZodType | null, Node, State>;

/** The client-event declarer of a namespace whose node and socket state are `Node` and `State`. */
export function clientEvents<Node = undefined, State = undefined>() {
  return <P extends z.ZodType, A extends z.ZodType | null>(event: ClientEvent<P, A, Node, State>): ClientEvent<P, A, Node, State> => event;
}

/** One emit of a push: to these rooms (none: nowhere, never the whole namespace), except those, with this data. */
export interface Emit<T> {
  to: string | string[];
  /** Rooms left out besides the withheld users' own (another language's readers, say). */
  except?: string[];
  data: T;
}

/** A domain event on its way to becoming a push: the domain's answer, then the door's emits. */
interface PendingPush {
  audience(live: LiveAudience): Promise<Audience | null>;
  emits: Emit<unknown>[];
}

/** A push's subscription to its domain event (made by `push`, where the event's type is known). */
interface PushRoute {
  /** Only this node's sockets: the namespace's node-local bookkeeping already chose the node. */
  local: boolean;
  listen(bus: DomainEventBus, deliver: (pending: PendingPush) => void): () => void;
}

export interface Push<S extends z.ZodType = z.ZodType> {
  summary: string;
  payload: S;
  route?: PushRoute;
}

export interface PushFrom<S extends z.ZodType, E extends DomainEventName> {
  summary: string;
  payload: S;
  /** The domain event it answers. */
  on: E;
  /** Whom the domain lets have it (a service's rule); everyone in the rooms when absent; null: nobody. */
  audience?: (event: DomainEvents[E], live: LiveAudience) => Promise<Audience | null>;
  /** Where it goes and with what (null or []: nowhere). */
  emit: (event: DomainEvents[E]) => Emit<z.output<S>> | Emit<z.output<S>>[] | null;
  /** Only to this node's sockets. */
  local?: boolean;
}

/** A push that answers a domain event. */
export function push<S extends z.ZodType, E extends DomainEventName>(declaration: PushFrom<S, E>): Push<S>;
/** A push the namespace's own code sends. */
export function push<S extends z.ZodType>(declaration: { summary: string; payload: S }): Push<S>;
export function push<S extends z.ZodType, E extends DomainEventName>(declaration: PushFrom<S, E> | { summary: string; payload: S }): Push<S> {
  const { summary, payload } = declaration;
  if (!('on' in declaration)) return { summary, payload };
  const { on, audience, emit, local } = declaration;
  const listen = (bus: DomainEventBus, deliver: (pending: PendingPush) => void) =>
    bus.subscribe(on, (event) => {
      const emits = emit(event);
      // An emit to no room at all would reach every socket of the namespace: it goes nowhere instead.
      const list = (emits === null ? [] : Array.isArray(emits) ? emits : [emits]).filter(({ to }) => typeof to === 'string' || to.length > 0);
      if (!list.length) return;
      deliver({ audience: audience ? (live) => audience(event, live) : async () => EVERYONE, emits: list });
    });
  return { summary, payload, route: { local: local ?? false, listen } };
}

/** The pushes of every namespace, listed before its own (realtime/recovery.ts sends them). */
export const commonPushes = {
  // To a socket that connects fresh.
  'recovery:ready': push({
    summary:
      'Hands a freshly connected socket its first recovery offset, so it can recover (CONTRACT §18) even if nothing else reached it before its connection dropped. Clients need not handle it.',
    payload: z.string().describe('The newest recovery offset this node knows for the namespace.'),
  }),
};

export interface NamespaceDeclaration<Node, State, C extends Record<string, AnyClientEvent<Node, State>>, P extends Record<string, Push>> {
  name: NamespaceName;
  description: string;
  events: C;
  pushes: P;
  /** Once per node, when the server starts: what the handlers share (node-local state, ports). */
  start?: (ctx: NodeContext<undefined>) => Node;
  /** This namespace's handshake step, after the common ones (realtime/handshake.ts). */
  handshake?: (socket: RealtimeSocket, ctx: NodeContext<Node>) => Promise<Undo | void> | Undo | void;
  /** Every socket that connects (new, or restored by recovery): what its handlers keep. */
  connect?: (socket: RealtimeSocket, ctx: NodeContext<Node>) => State;
  /** When the server closes. */
  stop?: (ctx: NodeContext<Node>) => void;
}

/** What the server needs of a namespace: its door deps in, its stop out. */
export interface DoorDeps {
  app: AppContext;
  services: Services;
}

export interface Mountable {
  /** Puts the namespace to work on its edge: handshake step, client events, subscriptions. */
  mount(edge: NamespaceEdge, deps: DoorDeps): () => void;
}

/** A declared namespace, its types erased: what the server, the contract and the document read. */
export interface DeclaredNamespace extends Mountable {
  name: NamespaceName;
  description: string;
  events: Record<string, { summary: string; payload: z.ZodType; ack: z.ZodType | null }>;
  pushes: Record<string, Push>;
}

/**
 * Declares a namespace whose node and socket state are `Node` and `State` (the types its `start`
 * and `connect` make): `defineNamespace<ChatNode, ChatSocket>()({ name, description, events, pushes, … })`.
 */
export function defineNamespace<Node = undefined, State = undefined>() {
  return <const C extends Record<string, AnyClientEvent<Node, State>>, const P extends Record<string, Push>>(
    declaration: NamespaceDeclaration<Node, State, C, P>,
  ): NamespaceDeclaration<Node, State, C, P> & Mountable => ({ ...declaration, mount: (edge, deps) => mount(declaration, edge, deps) });
}

function mount<Node, State>(
  declaration: NamespaceDeclaration<Node, State, Record<string, AnyClientEvent<Node, State>>, Record<string, Push>>,
  edge: NamespaceEdge,
  { app, services }: DoorDeps,
): () => void {
  const { nsp } = edge;
  const node = declaration.start?.({ nsp, app, services, node: undefined });
  const ctx: NodeContext<Node> = { nsp, app, services, node: node as Node };

  const step = declaration.handshake;
  if (step) edge.use((socket) => step(socket, ctx));

  const events = Object.entries(declaration.events);
  edge.onConnection((socket, on) => {
    const state = declaration.connect?.(socket, ctx) as State;
    for (const [name, event] of events) {
      on(name, event.payload, async (payload) => {
        const data = await event.handle(payload, { ...ctx, socket, caller: socket.data.caller, state });
        return event.ack ? data : undefined;
      });
    }
  });

  // One queue per namespace, so pushes keep their order while the domain answers (a message and
  // its edit arrive in order).
  const queue = inOrder(app.log, `${declaration.name} push`);
  const stops = Object.entries(declaration.pushes).flatMap(([name, { route }]) => {
    if (!route) return [];
    return [
      route.listen(app.events, (pending) =>
        queue(async () => {
          const audience = await pending.audience(services.liveAudience);
          if (!audience) return;
          const withheld = audience.withheld.map(rooms.user);
          for (const { to, except = [], data } of pending.emits) {
            const target = (route.local ? nsp.local : nsp).to(to).except([...except, ...withheld]);
            // The event's name is known at run time only; `emit` above typed its data by the schema.
            // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to its own receiver
            Reflect.apply(target.emit, target, [name, data]);
          }
        }),
      ),
    ];
  });
  return () => {
    stops.forEach((stop) => stop());
    declaration.stop?.(ctx);
  };
}
