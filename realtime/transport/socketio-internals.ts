// The one place that reaches into Socket.IO's and Engine.IO's internals (socket.io 4.8.4,
// engine.io and socket.io-adapter as pinned in package.json): what they expose at run time but
// not in their types. Each accessor checks what it reads, so a new version that changes a shape
// makes it answer "not there" rather than crash; the tests that depend on each one are named.
import type { WebSocket } from 'uWebSockets.js';
import type { Namespace, Socket } from 'socket.io';
import type { Adapter, ClusterMessage, MessageType } from 'socket.io-adapter';

type AnyFunction = (...args: unknown[]) => unknown;

/** The uWS websocket under a socket's Engine.IO websocket transport, if it has one (uws-binding.ts). */
export function uwsSocketOf(socket: Socket): WebSocket<unknown> | undefined {
  const ws: unknown = Reflect.get(socket.conn.transport, 'socket');
  return typeof ws === 'object' && ws !== null && typeof Reflect.get(ws, 'subscribe') === 'function' ? (ws as WebSocket<unknown>) : undefined;
}

/** A socket of the namespace by id, connected or still in its handshake (`_preConnectSockets`). */
export function namespaceSocket(nsp: Namespace, id: string): Socket | undefined {
  const pending: unknown = Reflect.get(nsp, '_preConnectSockets');
  return nsp.sockets.get(id) ?? (pending instanceof Map ? (pending.get(id) as Socket | undefined) : undefined);
}

/** Adds a `connection` listener ahead of the others (Namespace's typed emitter leaves prependListener out). */
export function prependConnectionListener(nsp: Namespace, listener: (socket: Socket) => void): void {
  const prepend: unknown = Reflect.get(nsp, 'prependListener');
  if (typeof prepend === 'function') Reflect.apply(prepend, nsp, ['connection', listener]);
  else nsp.on('connection', listener);
}

/** What the handover uses of an Engine.IO connection. */
export interface EngineConnection {
  transport: { name: string };
  close(discard?: boolean): void;
}

/** The engine's open connections (`engine.clients`, protected in the types). */
export function engineConnections(io: { engine: object }): EngineConnection[] {
  const clients: unknown = Reflect.get(io.engine, 'clients');
  if (typeof clients !== 'object' || clients === null) return [];
  return Object.values(clients).filter((c): c is EngineConnection => typeof c === 'object' && c !== null && typeof Reflect.get(c, 'close') === 'function');
}

/** Namespace._createSocket(client, auth) (socket.io 4.8): where a recovery is decided (recovery-owner.ts; recovery-theft.test.ts fails without it). */
export type CreateSocket = (client: Socket['client'], auth: Record<string, unknown>) => Promise<Socket>;

export function wrapCreateSocket(nsp: Namespace, wrap: (create: CreateSocket) => CreateSocket): void {
  const original: unknown = Reflect.get(nsp, '_createSocket');
  if (typeof original !== 'function') throw new Error('socket.io: Namespace._createSocket is gone (recovery-owner.ts needs it)');
  const create: CreateSocket = (client, auth) => Reflect.apply(original, nsp, [client, auth]) as ReturnType<CreateSocket>;
  Reflect.set(nsp, '_createSocket', wrap(create));
}

/** The id of the newest packet SessionAwareAdapter keeps for recovery (its `packets`, not in its types). */
export function newestStoredPacketId(adapter: Adapter): string | undefined {
  const packets: unknown = Reflect.get(adapter, 'packets');
  const last: unknown = Array.isArray(packets) ? packets.at(-1) : undefined;
  const id: unknown = typeof last === 'object' && last !== null ? Reflect.get(last, 'id') : undefined;
  return typeof id === 'string' ? id : undefined;
}

/** What encodes a Socket.IO packet into the frames Engine.IO writes (socket.io-parser's Encoder). */
export interface PacketEncoder {
  encode(packet: object): (string | Buffer)[];
}

function isPacketEncoder(value: unknown): value is PacketEncoder {
  return typeof value === 'object' && value !== null && typeof Reflect.get(value, 'encode') === 'function';
}

/** The adapter's packet encoder (`encoder`, private in socket.io-adapter's types): uws-binding.ts encodes a room broadcast once with it. */
export function adapterEncoder(adapter: Adapter): PacketEncoder {
  const encoder: unknown = Reflect.get(adapter, 'encoder');
  if (!isPacketEncoder(encoder)) throw new Error('socket.io-adapter: Adapter.encoder is gone (uws-binding.ts needs it)');
  return encoder;
}

/** A method of an adapter by name, bound, when it has one (metrics wrap the cluster adapters' publishing methods). */
export function adapterMethod(adapter: Adapter, name: string): AnyFunction | undefined {
  const method: unknown = Reflect.get(adapter, name);
  return typeof method === 'function' ? (...args: unknown[]) => Reflect.apply(method, adapter, args) as unknown : undefined;
}

/** Replaces an adapter's method by name (instance property, as the metrics' wrappers are). */
export function replaceAdapterMethod(adapter: Adapter, name: string, method: AnyFunction): void {
  Reflect.set(adapter, name, method);
}

/** A property of an adapter that is not in its types (the Redis adapters' `pubClient`, `subClient`). */
export function adapterProperty(adapter: Adapter, name: string): unknown {
  return Reflect.get(adapter, name);
}

/**
 * What recovery.ts uses of the Redis streams adapter (0.3.1): its node id, its message handlers
 * (wrapped to run something after them) and `publishAndReturnOffset`.
 */
export interface StreamAdapterHooks {
  uid: string;
  afterMessage(run: (message: ClusterMessage, offset?: string) => void): void;
  afterRawMessage(run: (offset: string) => void): void;
  publishAndReturnOffset(message: { type: MessageType }): Promise<string>;
}

export function streamAdapterHooks(adapter: Adapter): StreamAdapterHooks {
  const wrapAfter = (name: string, after: (args: unknown[]) => void) => {
    const original = adapterMethod(adapter, name);
    if (!original) throw new Error(`socket.io adapter: ${name} is gone (recovery.ts needs it)`);
    replaceAdapterMethod(adapter, name, (...args: unknown[]) => {
      const result = original(...args);
      after(args);
      return result;
    });
  };
  return {
    uid: String(Reflect.get(adapter, 'uid')),
    afterMessage: (run) => wrapAfter('onMessage', ([message, offset]) => run(message as ClusterMessage, typeof offset === 'string' ? offset : undefined)),
    afterRawMessage: (run) => wrapAfter('onRawMessage', ([, offset]) => run(String(offset))),
    publishAndReturnOffset: async (message) => {
      const publish = adapterMethod(adapter, 'publishAndReturnOffset');
      if (!publish) throw new Error('socket.io adapter: publishAndReturnOffset is gone');
      return String(await publish(message));
    },
  };
}
