// SIGTERM handover (CONTRACT §18): a stopping node hands its sockets to the other nodes without
// losing an event. It closes each connection's transport (websocket or long-polling), which is
// what a network drop looks like to the client: socket.io-client reconnects by itself (the load
// balancer sends it to another node, since this one no longer accepts) and asks to recover its
// session. Closing the transport makes Socket.IO persist each socket's session (rooms, data) in
// the adapter; with the streams adapter that is a key in Redis, and the node waits until Redis
// has it before it goes on stopping, so the other node can restore it and replay what was
// emitted meanwhile (events keep going into the stream). A server-side `disconnect()` would be
// the wrong tool: it discards the session and clients do not reconnect after it.
import type { Server } from 'socket.io';
import type { Logger } from '../../src/shared/logger.js';
import { engineConnections } from './socketio-internals.js';

const POLL_MS = 25;

/** At most this long for the connections to close, whatever SHUTDOWN_TIMEOUT_MS says (the rest of the stop needs its time too). */
const HANDOVER_MAX_MS = 5_000;

/** Closes every connection's transport; resolves once all are closed and `persisted` has resolved. */
export async function handOverSockets(io: Server, persisted: () => Promise<void>, timeoutMs: number, log: Logger): Promise<void> {
  const engine = io.engine;
  const count = engine.clientsCount;
  if (count === 0) return;
  // The engine's open connections by id (public at run time, protected in the types).
  const connections = engineConnections(io);
  // A long-polling connection with no poll waiting could only be told to go at the client's next
  // poll, which may never reach this node again (it stops listening, and a loaded client polls
  // late): so it is closed at once ("discarded"), which persists its session now. What it had not
  // yet fetched is replayed by recovery from the client's last offset, on the node it reaches.
  for (const connection of connections) connection.close(connection.transport.name === 'polling');
  const deadline = Date.now() + Math.min(timeoutMs, HANDOVER_MAX_MS);
  while (engine.clientsCount > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, POLL_MS));
  await persisted();
  log.info({ connections: count, left: engine.clientsCount }, 'realtime connections handed over');
}
