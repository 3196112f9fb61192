// The Socket.IO types the namespace declarations and the transport work on. Their event maps are
// open on purpose: each event's payload is typed by its declaration (realtime/namespace.ts: a
// handler's payload by its schema, a push's data by its schema through `emit` or `sockets`; the
// namespace code's own few emits by the view types of src/), and the typed maps derived from the
// declarations (realtime/events.ts) would lead every declaration's imports back to itself.
import type { Namespace, Server, Socket } from 'socket.io';
import type { Caller } from '../src/auth/index.js';
import type { AreaWatch } from '../src/content/index.js';

/** What nodes say to each other besides the adapter's own traffic (serverSideEmit): not pushes. */
export interface InterServerEvents {
  /** /feed: an item's counts changed on the sending node (realtime/ports.ts). */
  'feed:counts-changed': (contentId: string) => void;
  /** An every-node push the sending node heard, with whom the domain withheld it from (realtime/namespace.ts). */
  'push:elsewhere': (push: string, event: unknown, withheld: string[]) => void;
}

/** What the handshake leaves on every socket. */
export interface SocketData {
  caller: Caller;
  /** /feed: the viewport of the last \`area:watch\`, kept with the session so a recovered socket keeps it. */
  feedArea?: AreaWatch;
}

/** Events by name, their arguments checked where each is declared. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Socket.IO's own open map has this shape
type OpenEvents = Record<string, (...args: any[]) => void>;

export type RealtimeServer = Server<OpenEvents, OpenEvents, InterServerEvents, SocketData>;
export type RealtimeNamespace = Namespace<OpenEvents, OpenEvents, InterServerEvents, SocketData>;
export type RealtimeSocket = Socket<OpenEvents, OpenEvents, InterServerEvents, SocketData>;
