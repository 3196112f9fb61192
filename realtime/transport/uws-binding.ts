/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access -- socket.io-adapter types an adapter's `nsp` as `any` */
// Attaches a Socket.IO server to a uWebSockets.js app so that several servers can live in one
// process (the multi-node tests start two nodes in one process).
//
// Why: `io.attachApp(app)` speeds up room broadcasts by patching the *global*
// socket.io-adapter `Adapter.prototype` (addAll/del/broadcast) with functions bound to that one
// uWS app (websocket clients are subscribed to uWS topics and a broadcast is one `app.publish`).
// A second attachApp re-patches with the second app, so the first server's broadcasts would be
// published on the second app; and closing any server restores the prototype for all of them.
// Here each server keeps the functions bound to its own app, and the prototype gets small
// dispatchers that pick the functions of the server the adapter belongs to (or the unpatched
// originals for a server attached to a plain Node HTTP server).
//
// Recovered sockets: a socket restored by connection state recovery joins its previous rooms while it is
// being built, before the namespace knows it, so the patched addAll cannot find it and its
// websocket is never subscribed to the uWS topics of those rooms: it would get its missed events
// and then nothing more. Each recovered socket is subscribed here when it connects (or when it
// upgrades to websocket), before any other connection handler runs.
//
// Closed websockets: nothing may touch a uWS websocket once it is closed ("Invalid access of closed
// uWS.WebSocket" is thrown, and from an async handler it ends the process). socket.io's patched
// addAll subscribes a socket still in its handshake (which our handshake steps, and Socket.IO
// itself, do after awaits) to its rooms' topics on its websocket, whether or not the client has
// gone meanwhile. The dispatchers below keep only the room bookkeeping for a socket whose
// websocket is closed (or not open yet), and the recovered-socket subscription checks the same.
//
// The room broadcast itself, whose CPU per delivery sets the fan-out's cost. socket.io's patched broadcast
// publishes a one-room broadcast once to the room's uWS topic, but then walks every member of the
// room to find the long-polling ones (which topics do not reach): per delivery, that walk cost
// more than the publish. Here each namespace keeps the set of its sockets on long-polling (usually
// none or few), so a broadcast is encoded once, published once to the room's topic (uWS copies it
// to every subscribed websocket natively), and written only to the polling sockets of the room.
// Recovery allows it: the offset a stored event carries is appended by the adapter to the packet
// once per broadcast (SessionAwareAdapter, the rooms adapter), so it is the same for every
// receiver. A broadcast with `except` rooms, or to several rooms, goes socket by socket, unpatched
// (uWS topics cannot leave sockets out). REALTIME_NATIVE_PUBLISH=off writes every broadcast
// socket by socket (no uWS topics at all): a way out should uWS pub/sub misbehave, and the
// reference the fan-out bench measures against.
import type { TemplatedApp } from 'uWebSockets.js';
import type { Namespace, Server, Socket } from 'socket.io';
import { Adapter, type BroadcastOptions } from 'socket.io-adapter';
import { adapterEncoder, namespaceSocket, prependConnectionListener, uwsSocketOf } from './socketio-internals.js';

type Patchable = Pick<Adapter, 'addAll' | 'del' | 'broadcast'>;

const proto = Adapter.prototype as Adapter & Patchable;
// Captured when this module loads, i.e. before any attachApp.
// eslint-disable-next-line @typescript-eslint/unbound-method -- the prototype's own methods, called with each adapter as `this`
const originals: Patchable = { addAll: proto.addAll, del: proto.del, broadcast: proto.broadcast };
const bound = new WeakMap<object, Patchable>();

function implFor(adapter: Adapter): Patchable {
  return bound.get(adapter.nsp.server) ?? originals;
}

/** Whether a uWS call on the socket's websocket is allowed: websocket transport, open, its uWS socket there. */
function websocketUsable(socket: Socket): boolean {
  const transport = socket.conn.transport;
  return transport.name === 'websocket' && transport.readyState === 'open' && socket.conn.readyState !== 'closed' && uwsSocketOf(socket) !== undefined;
}

/** Whether the socket `id` of the adapter's namespace sits on a websocket that may no longer be used. */
function onDeadWebsocket(adapter: Adapter, id: string): boolean {
  const socket = namespaceSocket(adapter.nsp, id);
  return socket !== undefined && socket.conn.transport.name === 'websocket' && !websocketUsable(socket);
}

function installDispatchers(): void {
  proto.addAll = function (this: Adapter, ...args: Parameters<Adapter['addAll']>) {
    const impl = onDeadWebsocket(this, args[0]) ? originals : implFor(this);
    return impl.addAll.apply(this, args);
  };
  proto.del = function (this: Adapter, ...args: Parameters<Adapter['del']>) {
    const impl = onDeadWebsocket(this, args[0]) ? originals : implFor(this);
    return impl.del.apply(this, args);
  };
  proto.broadcast = function (this: Adapter, ...args: Parameters<Adapter['broadcast']>) {
    return implFor(this).broadcast.apply(this, args);
  };
}

/** socket.io's topic names for uWS pub/sub: the namespace, and namespace + \x1f + room. */
const TOPIC_SEPARATOR = '\x1f';

function subscribeRecovered(nsp: Namespace, socket: Socket): void {
  const subscribe = () => {
    if (!socket.connected || !websocketUsable(socket)) return;
    const ws = uwsSocketOf(socket)!;
    ws.subscribe(nsp.name);
    for (const room of socket.rooms) ws.subscribe(`${nsp.name}${TOPIC_SEPARATOR}${room}`);
  };
  if (socket.conn.transport.name === 'websocket') subscribe();
  else socket.conn.once('upgrade', subscribe);
}

/** Each namespace's sockets on long-polling: uWS topics do not reach them, so a broadcast writes to them itself. */
const pollingSockets = new WeakMap<Namespace, Set<Socket>>();

/**
 * Notes a socket that connects on long-polling until it upgrades (socket.io's addAll subscribes
 * it to its rooms' topics in the same 'upgrade' event) or goes. Connected sockets are the only
 * ones a broadcast reaches, and this runs first when one connects.
 */
function trackPolling(nsp: Namespace, socket: Socket): void {
  if (socket.conn.transport.name === 'websocket') return;
  let polling = pollingSockets.get(nsp);
  if (!polling) pollingSockets.set(nsp, (polling = new Set()));
  const set = polling;
  set.add(socket);
  const forget = () => set.delete(socket);
  socket.conn.once('upgrade', forget);
  socket.once('disconnect', forget);
}

/** A one-room (or namespace-wide) broadcast without exceptions: encoded once, one uWS publish, then the polling sockets. */
function nativeBroadcast(app: TemplatedApp): Adapter['broadcast'] {
  return function (this: Adapter, packet: { nsp?: string }, opts: BroadcastOptions): void {
    if (opts.rooms.size > 1 || (opts.except?.size ?? 0) > 0) return originals.broadcast.call(this, packet, opts);
    packet.nsp = this.nsp.name;
    const frames = adapterEncoder(this).encode(packet);
    const room = opts.rooms.size === 1 ? [...opts.rooms][0] : undefined;
    const topic = room === undefined ? this.nsp.name : `${this.nsp.name}${TOPIC_SEPARATOR}${room}`;
    // "4" is an Engine.IO message; binary attachments follow as frames of their own.
    for (const frame of frames) {
      if (typeof frame === 'string') app.publish(topic, '4' + frame, false);
      else app.publish(topic, frame, true);
    }
    const polling = pollingSockets.get(this.nsp);
    if (!polling?.size) return;
    const members = room === undefined ? null : this.rooms.get(room);
    if (room !== undefined && !members) return;
    const flags = opts.flags ?? {};
    for (const socket of polling) {
      if (members && !members.has(socket.id)) continue;
      const conn = socket.conn;
      // As socket.io's own write: only to an open connection; a volatile event only when it can go now.
      if (conn.readyState !== 'open' || conn.transport.name === 'websocket') continue;
      if (flags.volatile && !conn.transport.writable) continue;
      for (const frame of frames) conn.write(frame, { compress: flags.compress });
    }
  };
}

function watchNamespace(nsp: Namespace): void {
  const onConnection = (socket: Socket) => {
    trackPolling(nsp, socket);
    if (socket.recovered) subscribeRecovered(nsp, socket);
  };
  // First in line, so pushes made by other connection handlers already reach this socket.
  prependConnectionListener(nsp, onConnection);
}

/**
 * Serves Socket.IO on the uWS app. `nativePublish` (REALTIME_NATIVE_PUBLISH): room broadcasts go
 * through uWS topics (above); without it every broadcast is written socket by socket.
 */
export function attachToUws(io: Server, app: TemplatedApp, options: { nativePublish: boolean }): void {
  io.attachApp(app);
  if (options.nativePublish) {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the prototype's own methods, called with each adapter as `this`
    bound.set(io, { addAll: proto.addAll, del: proto.del, broadcast: nativeBroadcast(app) });
    io._nsps.forEach(watchNamespace);
    io.on('new_namespace', watchNamespace);
  }
  installDispatchers();
}

/** Closes the server (which restores the prototype) and puts the dispatchers back for the others. */
export function closeServer(io: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    void io.close(() => {
      bound.delete(io);
      installDispatchers();
      resolve();
    });
  });
}
