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
import type { TemplatedApp } from 'uWebSockets.js';
import type { Server } from 'socket.io';
import { Adapter } from 'socket.io-adapter';

type Patchable = Pick<Adapter, 'addAll' | 'del' | 'broadcast'>;

const proto = Adapter.prototype as Adapter & Patchable;
// Captured when this module loads, i.e. before any attachApp.
const originals: Patchable = { addAll: proto.addAll, del: proto.del, broadcast: proto.broadcast };
const bound = new WeakMap<object, Patchable>();

function implFor(adapter: Adapter): Patchable {
  return bound.get(adapter.nsp.server) ?? originals;
}

function installDispatchers(): void {
  proto.addAll = function (this: Adapter, ...args: Parameters<Adapter['addAll']>) {
    return implFor(this).addAll.apply(this, args);
  };
  proto.del = function (this: Adapter, ...args: Parameters<Adapter['del']>) {
    return implFor(this).del.apply(this, args);
  };
  proto.broadcast = function (this: Adapter, ...args: Parameters<Adapter['broadcast']>) {
    return implFor(this).broadcast.apply(this, args);
  };
}

export function attachToUws(io: Server, app: TemplatedApp): void {
  io.attachApp(app);
  bound.set(io, { addAll: proto.addAll, del: proto.del, broadcast: proto.broadcast });
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
