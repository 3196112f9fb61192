// Socket.IO attached to the uWebSockets.js app (placeholder until the realtime issue lands).
import type { TemplatedApp } from 'uWebSockets.js';
import { Server } from 'socket.io';
import type { AppContext } from '../src/context.js';
import type { CoreServices } from '../src/core-services.js';

export interface Realtime {
  io: Server;
  close(): Promise<void>;
}

export async function attachRealtime(uws: TemplatedApp, _app: AppContext, _core: CoreServices): Promise<Realtime> {
  const io = new Server({ cors: { origin: '*' } });
  io.attachApp(uws);
  return {
    io,
    close: () => new Promise<void>((resolve) => io.close(() => resolve())),
  };
}
