// How many sockets one user may hold on this node (CONTRACT §19): at most MAX_CONNECTIONS_PER_USER
// connections. A "connection" is one Engine.IO connection (one websocket or long-polling
// session); the namespaces it multiplexes (/chat, /feed, … over one socket.io-client Manager) are
// one connection, since that is what an app opens per device or browser tab. One connection holds
// at most one socket per namespace: Socket.IO refuses a second CONNECT for a namespace that is
// already connected, but not one sent while the first is still in its handshake, so without this
// a client could open any number of sockets on one connection.
//
// A place is taken (per connection and namespace) when a handshake starts and given back when the
// socket disconnects, when a later handshake step refuses it, or when the connection closes
// (whatever state its sockets were in). Counts are per node, in memory: a socket lives on one node.
import type { EventEmitter } from 'node:events';

export const MAX_CONNECTIONS_PER_USER = 20;

/** The Engine.IO connection of a socket (`socket.conn`): its state and its `close` event. */
export type Connection = Pick<EventEmitter, 'once'> & { readonly readyState: string };

export type Refusal = 'duplicate' | 'full';

interface Held {
  /** Namespace → the user whose socket holds it (null until the handshake has authenticated it). */
  namespaces: Map<string, string | null>;
}

export class ConnectionLimit {
  private readonly connections = new Map<Connection, Held>();
  /** User → the connections holding at least one of their sockets. */
  private readonly users = new Map<string, Set<Connection>>();

  constructor(private readonly maxPerUser = MAX_CONNECTIONS_PER_USER) {}

  /** Takes `namespace` on `conn` for a socket in its handshake: refused when it is already taken. */
  enter(conn: Connection, namespace: string): Refusal | null {
    if (conn.readyState !== 'open') return null; // gone: nothing to hold, the handshake stops
    const held = this.held(conn);
    if (held.namespaces.has(namespace)) return 'duplicate';
    held.namespaces.set(namespace, null);
    return null;
  }

  /** Counts the connection for `userId` (once, whatever its namespaces): refused past the limit. */
  admit(conn: Connection, namespace: string, userId: string): Refusal | null {
    const held = this.connections.get(conn);
    if (!held || !held.namespaces.has(namespace)) return null; // gone meanwhile
    const ofUser = this.users.get(userId) ?? new Set<Connection>();
    if (!ofUser.has(conn) && ofUser.size >= this.maxPerUser) return 'full';
    ofUser.add(conn);
    this.users.set(userId, ofUser);
    held.namespaces.set(namespace, userId);
    return null;
  }

  /** Gives back the place of `namespace` on `conn`. */
  leave(conn: Connection, namespace: string): void {
    const held = this.connections.get(conn);
    if (!held?.namespaces.has(namespace)) return;
    const userId = held.namespaces.get(namespace);
    held.namespaces.delete(namespace);
    if (userId && ![...held.namespaces.values()].includes(userId)) this.forget(userId, conn);
  }

  /** Connections counted for `userId` on this node (metrics, tests). */
  connectionsOf(userId: string): number {
    return this.users.get(userId)?.size ?? 0;
  }

  private held(conn: Connection): Held {
    let held = this.connections.get(conn);
    if (!held) {
      held = { namespaces: new Map() };
      this.connections.set(conn, held);
      // Kept until the connection closes (one listener per connection, however often its
      // namespaces come and go), then everything it held goes at once.
      conn.once('close', () => this.closed(conn));
    }
    return held;
  }

  private closed(conn: Connection): void {
    const held = this.connections.get(conn);
    this.connections.delete(conn);
    for (const userId of new Set(held?.namespaces.values())) if (userId) this.forget(userId, conn);
  }

  private forget(userId: string, conn: Connection): void {
    const ofUser = this.users.get(userId);
    ofUser?.delete(conn);
    if (ofUser?.size === 0) this.users.delete(userId);
  }
}
