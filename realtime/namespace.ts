// How every Socket.IO namespace is declared: once, like a REST route (http/route.ts), in
// realtime/namespaces/<name>.ts:
// - its client events: the payload schema the handler validates with, the schema of the ack's
//   `data` (or null: the ack is `{ok: true}`), and the handler;
// - the domain services its code calls (`uses`): it is handed those and no other;
// - its pushes: the payload schema, and for a push that answers a domain event, the event, whom the
//   domain lets have it (`audience`: a service's answer, src/live/audience.ts) and where it goes
//   (`emit`: the rooms and the data, the door's only part; or `sockets`: this node's sockets its
//   node-local bookkeeping picks, on every node). A push without `on` is sent by the namespace's
//   own code (typing);
// - the domain events that move sockets between rooms (`rooms`);
// - its own handshake step, what each connecting socket keeps (`connect`), and the door's own
//   node-local bookkeeping its sockets share (`start`). Domain services are started and stopped
//   by the composition root (service.ts), never here.
// Every subscription to the domain bus is made by `mount` (below) under the handler name listed
// in src/event-handlers.ts: `<namespace> <push>`, or `<namespace> rooms`.
// From these the typed event maps (realtime/events.ts), the event contract and the AsyncAPI
// document (realtime/contract.ts, asyncapi.ts) and the subscriptions to the domain bus (`mount`,
// below) are derived; nothing else declares an event.
import { z } from 'zod';
import type { AppContext } from '../src/context.js';
import type { Services } from '../src/services.js';
import type { Caller } from '../src/auth/index.js';
import type { DomainEvents } from '../src/events.js';
import type { DomainEventName } from '../src/event-handlers.js';
import { EVERYONE, type Audience, type LiveAudience } from '../src/live/index.js';
import type { RealtimeNamespace, RealtimeSocket } from './socket-types.js';
import type { NamespaceEdge, Undo } from './transport/socket-edge.js';
import { inOrder } from './transport/in-order.js';
import { rooms } from './rooms.js';

export type NamespaceName = `/${string}`;

/** What one node gives a namespace's code. */
export interface NodeContext<Node, Uses extends keyof Services = never> {
  nsp: RealtimeNamespace;
  app: AppContext;
  /** The services the namespace declared it uses, and no other. */
  services: Pick<Services, Uses>;
  /** What `start` made for this node (undefined without `start`). */
  node: Node;
}

/** What a client event's handler gets besides its payload. */
export interface SocketContext<Node, State, Uses extends keyof Services = never> extends NodeContext<Node, Uses> {
  socket: RealtimeSocket;
  /** The socket's caller as it is now (read again before each event). */
  caller: Caller;
  /** What `connect` made for this socket (undefined without `connect`). */
  state: State;
}

/** The ack's `data`: the ack schema's output, or nothing (the ack is `{ok: true}`) without one. */
export type AckData<A> = A extends z.ZodType ? z.output<A> : void;

export interface ClientEvent<P extends z.ZodType, A extends z.ZodType | null, Node, State, Uses extends keyof Services = never> {
  summary: string;
  /** What the handler validates the payload with (an invalid one is answered `validation.error.*`). */
  payload: P;
  /** The schema of `data` in a successful ack; null when the ack is `{ok: true}` alone. */
  ack: A;
  handle(payload: z.output<P>, ctx: SocketContext<Node, State, Uses>): Promise<AckData<A>>;
}

type AnyClientEvent<Node, State, Uses extends keyof Services> = ClientEvent<z.ZodType, z.ZodType | null, Node, State, Uses>;

/** The client-event declarer of a namespace whose node and socket state are `Node` and `State`, using the services `Uses`. */
export function clientEvents<Node = undefined, State = undefined, Uses extends keyof Services = never>() {
  return <P extends z.ZodType, A extends z.ZodType | null>(event: ClientEvent<P, A, Node, State, Uses>): ClientEvent<P, A, Node, State, Uses> => event;
}

/** One emit of a push: to these rooms (none: nowhere, never the whole namespace), except those, with this data. */
export interface Emit<T> {
  to: string | string[];
  /** Rooms left out besides the withheld users' own (another language's readers, say). */
  except?: string[];
  data: T;
}

/** One delivery to a socket of this node that the namespace's node-local bookkeeping chose. */
export interface SocketEmit<T> {
  socket: RealtimeSocket;
  data: T;
}

/** Where a push is delivered: the namespace, its name, what this node keeps for it. */
interface PushTarget {
  nsp: RealtimeNamespace;
  name: string;
  node: unknown;
}

/** A domain event on its way to becoming a push: the domain's answer, then the door's delivery. */
interface PendingPush {
  audience(live: LiveAudience): Promise<Audience | null>;
  /** Delivers to every socket the push reaches but those of the `withheld` users. */
  deliver(target: PushTarget, withheld: string[]): void;
}

/** A push's route from its domain event (made by `push`, where the event's type is known). */
export interface PushRoute {
  on: DomainEventName;
  /**
   * Each node delivers to its own sockets (node-local bookkeeping picks them): the node that heard
   * the event asks the domain once and hands the event and its answer to the others.
   */
  everyNode: boolean;
  /** What the event becomes; null when it goes nowhere. */
  pending(event: unknown): PendingPush | null;
}

export interface Push<S extends z.ZodType = z.ZodType> {
  summary: string;
  payload: S;
  route?: PushRoute;
}

interface PushFromEvent<S extends z.ZodType, E extends DomainEventName> {
  summary: string;
  payload: S;
  /** The domain event it answers. */
  on: E;
  /** Whom the domain lets have it (a service's rule); everyone in the rooms when absent; null: nobody. */
  audience?: (event: DomainEvents[E], live: LiveAudience) => Promise<Audience | null>;
}

export interface PushFrom<S extends z.ZodType, E extends DomainEventName> extends PushFromEvent<S, E> {
  /** Where it goes and with what (null or []: nowhere). */
  emit: (event: DomainEvents[E]) => Emit<z.output<S>> | Emit<z.output<S>>[] | null;
  /** Only to this node's sockets. */
  local?: boolean;
}

export interface PushToSockets<S extends z.ZodType, E extends DomainEventName, Node> extends PushFromEvent<S, E> {
  /** The sockets of this node it goes to, each with its data, as the namespace's node bookkeeping finds them. */
  sockets: (event: DomainEvents[E], node: Node) => SocketEmit<z.output<S>>[];
}

const asList = <T>(value: T | T[] | null): T[] => (value === null ? [] : Array.isArray(value) ? value : [value]);

/** A push that answers a domain event, through rooms. */
export function push<S extends z.ZodType, E extends DomainEventName>(declaration: PushFrom<S, E>): Push<S>;
/** A push that answers a domain event on every node, to the sockets each node's bookkeeping picks. */
export function push<S extends z.ZodType, E extends DomainEventName, Node>(declaration: PushToSockets<S, E, Node>): Push<S>;
/** A push the namespace's own code sends. */
export function push<S extends z.ZodType>(declaration: { summary: string; payload: S }): Push<S>;
export function push<S extends z.ZodType, E extends DomainEventName, Node>(
  declaration: PushFrom<S, E> | PushToSockets<S, E, Node> | { summary: string; payload: S },
): Push<S> {
  const { summary, payload } = declaration;
  if (!('on' in declaration)) return { summary, payload };
  const { on, audience } = declaration;
  const answer = (event: DomainEvents[E]) => (audience ? (live: LiveAudience) => audience(event, live) : async () => EVERYONE);
  if ('sockets' in declaration) {
    const { sockets } = declaration;
    const pending = (event: unknown): PendingPush => ({
      audience: answer(event as DomainEvents[E]),
      deliver: ({ name, node }, withheld) => {
        const left = new Set(withheld);
        for (const { socket, data } of sockets(event as DomainEvents[E], node as Node)) {
          // The event's name is known at run time only; `sockets` above typed its data by the schema.
          // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to its own receiver
          if (socket.connected && !left.has(socket.data.caller.userId)) Reflect.apply(socket.emit, socket, [name, data]);
        }
      },
    });
    return { summary, payload, route: { on, everyNode: true, pending } };
  }
  const { emit, local = false } = declaration;
  const pending = (event: unknown): PendingPush | null => {
    // An emit to no room at all would reach every socket of the namespace: it goes nowhere instead.
    const emits = asList(emit(event as DomainEvents[E])).filter(({ to }) => typeof to === 'string' || to.length > 0);
    if (!emits.length) return null;
    return {
      audience: answer(event as DomainEvents[E]),
      deliver: ({ nsp, name }, withheld) => {
        const users = withheld.map(rooms.user);
        for (const { to, except = [], data } of emits) {
          const target = (local ? nsp.local : nsp).to(to).except([...except, ...users]);
          // The event's name is known at run time only; `emit` above typed its data by the schema.
          // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to its own receiver
          Reflect.apply(target.emit, target, [name, data]);
        }
      },
    };
  };
  return { summary, payload, route: { on, everyNode: false, pending } };
}

/** A change of room membership a domain event causes, made through the adapter (every node). */
export type RoomUpkeep = { [E in DomainEventName]?: (event: DomainEvents[E], nsp: RealtimeNamespace) => void };

/** The pushes of every namespace, listed before its own (realtime/transport/recovery.ts sends them). */
export const commonPushes = {
  // To a socket that connects fresh.
  'recovery:ready': push({
    summary:
      'Hands a freshly connected socket its first recovery offset, so it can recover (CONTRACT §18) even if nothing else reached it before its connection dropped. Clients need not handle it.',
    payload: z.string().describe('The newest recovery offset this node knows for the namespace.'),
  }),
};

export interface NamespaceDeclaration<
  Node,
  State,
  Uses extends keyof Services,
  C extends Record<string, AnyClientEvent<Node, State, Uses>>,
  P extends Record<string, Push>,
> {
  name: NamespaceName;
  description: string;
  /** The domain services its code calls: all it is given of them. */
  uses: readonly Uses[];
  events: C;
  pushes: P;
  /** Domain events that move this node's or every node's sockets between rooms. */
  rooms?: RoomUpkeep;
  /** Once per node, when the server starts: the door's own node-local bookkeeping its handlers share. */
  start?: (ctx: NodeContext<undefined, Uses>) => Node;
  /** This namespace's handshake step, after the common ones (realtime/transport/handshake.ts). */
  handshake?: (socket: RealtimeSocket, ctx: NodeContext<Node, Uses>) => Promise<Undo | void> | Undo | void;
  /** Every socket that connects (new, or restored by recovery): what its handlers keep. */
  connect?: (socket: RealtimeSocket, ctx: NodeContext<Node, Uses>) => State;
}

/** What the door gives every namespace's machinery: the app, and who may have a push. */
export interface DoorDeps {
  app: AppContext;
  /**
   * The door's services: `liveAudience` for the pushes, and those each namespace declared in `uses`
   * (realtime/server.ts RealtimeServices is their union, so the compiler sees each one given).
   */
  services: Pick<Services, 'liveAudience'> & Partial<Services>;
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
 * and `connect` make) and which calls the services `Uses`:
 * `defineNamespace<ChatNode, ChatSocket, 'chat' | 'presence'>()({ name, uses: ['chat', 'presence'], events, pushes, … })`.
 */
export function defineNamespace<Node = undefined, State = undefined, Uses extends keyof Services = never>() {
  return <const C extends Record<string, AnyClientEvent<Node, State, Uses>>, const P extends Record<string, Push>, const L extends readonly Uses[]>(
    declaration: NamespaceDeclaration<Node, State, Uses, C, P> & { uses: L } & EveryUseListed<Uses, L>,
  ): NamespaceDeclaration<Node, State, Uses, C, P> & Mountable => ({ ...declaration, mount: (edge, deps) => mount(declaration, edge, deps) });
}

/**
 * `Uses` (what the handlers are typed to reach) must all be in `uses` (what they are given): a
 * service typed but not listed would be undefined at run time. The compiler names the missing ones.
 */
type EveryUseListed<Uses, L extends readonly unknown[]> = [Exclude<Uses, L[number]>] extends [never] ? unknown : { missingFromUses: Exclude<Uses, L[number]> };

/** Only the services the namespace said it uses. */
function servicesFor<Uses extends keyof Services>(services: Partial<Services>, uses: readonly Uses[]): Pick<Services, Uses> {
  return Object.fromEntries(uses.map((name) => [name, services[name]])) as Pick<Services, Uses>;
}

/** The bus checks each (event, handler) pair against src/event-handlers.ts when it subscribes. */
type AnyHandler = never;

function mount<Node, State, Uses extends keyof Services>(
  declaration: NamespaceDeclaration<Node, State, Uses, Record<string, AnyClientEvent<Node, State, Uses>>, Record<string, Push>>,
  edge: NamespaceEdge,
  { app, services }: DoorDeps,
): () => void {
  const { nsp } = edge;
  const used = servicesFor(services, declaration.uses);
  const node = declaration.start?.({ nsp, app, services: used, node: undefined });
  const ctx: NodeContext<Node, Uses> = { nsp, app, services: used, node: node as Node };

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

  // With Redis other nodes exist and hear serverSideEmit; the in-memory adapter has no peers.
  const clustered = Boolean(app.config.REDIS_URL);
  // One queue per namespace, so pushes keep their order while the domain answers (a message and
  // its edit arrive in order).
  const queue = inOrder(app.log, `${declaration.name} push`);
  const routes = new Map(Object.entries(declaration.pushes).flatMap(([name, { route }]) => (route ? [[name, route] as const] : [])));
  const stops = [...routes].map(([name, route]) =>
    app.events.handle(route.on, `${declaration.name} ${name}` as AnyHandler, (event) => {
      const pending = route.pending(event);
      if (!pending) return;
      queue(async () => {
        const audience = await pending.audience(services.liveAudience);
        if (!audience) return;
        pending.deliver({ nsp, name, node }, audience.withheld);
        if (route.everyNode && clustered) nsp.serverSideEmit('push:elsewhere', name, event, audience.withheld);
      });
    }),
  );
  // Another node heard the event of an every-node push and asked the domain: deliver here.
  nsp.on('push:elsewhere', (name: string, event: unknown, withheld: string[]) => {
    const route = routes.get(name);
    if (!route?.everyNode) return;
    const pending = route.pending(event);
    if (pending) queue(async () => pending.deliver({ nsp, name, node }, withheld));
  });
  for (const [event, upkeep] of Object.entries(declaration.rooms ?? {})) {
    const change = upkeep as (event: unknown, nsp: RealtimeNamespace) => void;
    stops.push(app.events.handle(event as DomainEventName, `${declaration.name} rooms` as AnyHandler, (payload) => change(payload, nsp)));
  }
  return () => {
    stops.forEach((stop) => stop());
    nsp.removeAllListeners('push:elsewhere');
  };
}
