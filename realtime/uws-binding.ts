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
// Second fix: a socket restored by connection state recovery joins its previous rooms while it is
// being built, before the namespace knows it, so the patched addAll cannot find it and its
// websocket is never subscribed to the uWS topics of those rooms: it would get its missed events
// and then nothing more. Each recovered socket is subscribed here when it connects (or when it
// upgrades to websocket), before any other connection handler runs.
//
// Third fix: nothing may touch a uWS websocket once it is closed ("Invalid access of closed
// uWS.WebSocket" is thrown, and from an async handler it ends the process). socket.io's patched
// addAll subscribes a socket still in its handshake (which our handshake steps, and Socket.IO
// itself, do after awaits) to its rooms' topics on its websocket, whether or not the client has
// gone meanwhile. The dispatchers below keep only the room bookkeeping for a socket whose
// websocket is closed (or not open yet), and the recovered-socket subscription checks the same.
import type { TemplatedApp } from 'uWebSockets.js';
import type { Namespace, Server, Socket } from 'socket.io';
import { Adapter } from 'socket.io-adapter';
import { namespaceSocket, prependConnectionListener, uwsSocketOf } from './socketio-internals.js';

type Patchable = Pick<Adapter, 'addAll' | 'del' | 'broadcast'>;

const proto = Adapter.prototype as Adapter & Patchable;
// Captured when this module loads, i.e. before any attachApp.
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

function watchRecoveries(nsp: Namespace): void {
  const onConnection = (socket: Socket) => {
    if (socket.recovered) subscribeRecovered(nsp, socket);
  };
  // First in line, so pushes made by other connection handlers already reach this socket.
  prependConnectionListener(nsp, onConnection);
}

export function attachToUws(io: Server, app: TemplatedApp): void {
  io.attachApp(app);
  bound.set(io, { addAll: proto.addAll, del: proto.del, broadcast: proto.broadcast });
  installDispatchers();
  io._nsps.forEach(watchRecoveries);
  io.on('new_namespace', watchRecoveries);
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
