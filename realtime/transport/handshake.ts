// The handshake steps every namespace starts with (realtime/transport/socket-edge.ts runs them):
// 1. one socket per namespace per connection (a second CONNECT while the first is pending is
//    refused with `too_many_connections`);
// 2. authentication: `auth: {token}` (or an `Authorization: Bearer` header for non-browser
//    clients) resolved exactly like a REST request, including the live-session check. A missing,
//    bad, expired or revoked token fails the connection with the message `unauthorized`
//    (CONTRACT §7); `err.data.error_code` says which;
// 3. at most MAX_CONNECTIONS_PER_USER connections per user on this node (`too_many_connections`);
// 4. the rooms of the user and of the session, joined before `connection` fires, so a revocation
//    published from then on reaches the socket.
import type { IncomingHttpHeaders } from 'node:http';
import type { Caller, CallerResolver } from '../../src/auth/index.js';
import { unauthorized } from '../../src/shared/errors.js';
import type { ConnectionLimit } from './connection-limit.js';
import type { RealtimeSocket } from '../socket-types.js';
import { rooms } from '../rooms.js';
import { refuse, type HandshakeStep } from './socket-edge.js';

const MAX_TOKEN_LENGTH = 4096;

const tooManyConnections = () => refuse('too_many_connections', 'realtime.error.too_many_connections');

/** The bearer token of a handshake: `auth.token`, else the Authorization header. */
export function tokenOf(auth: unknown, headers: IncomingHttpHeaders): string | null {
  const token = (auth as { token?: unknown } | null | undefined)?.token;
  if (typeof token === 'string' && token) return token.replace(/^Bearer\s+/i, '');
  const header = headers.authorization;
  const m = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return m ? m[1] : null;
}

/** The caller a handshake's token names (401 AppError when there is none or it is not live). */
export async function handshakeCaller(callers: CallerResolver, auth: unknown, headers: IncomingHttpHeaders): Promise<Caller> {
  const token = tokenOf(auth, headers);
  if (!token || token.length > MAX_TOKEN_LENGTH) throw unauthorized('auth.error.missing_token', 'A token is required');
  return callers.resolve(token);
}

/** The steps every namespace's handshake begins with, in order. */
export function commonHandshake(callers: CallerResolver, limit: ConnectionLimit): HandshakeStep[] {
  const namespaceOf = (socket: RealtimeSocket) => socket.nsp.name;
  const oneSocketPerNamespace: HandshakeStep = (socket) => {
    if (limit.enter(socket.conn, namespaceOf(socket))) throw tooManyConnections();
    socket.once('disconnect', () => limit.leave(socket.conn, namespaceOf(socket)));
    return () => limit.leave(socket.conn, namespaceOf(socket));
  };
  const authenticate: HandshakeStep = async (socket) => {
    socket.data.caller = await handshakeCaller(callers, socket.handshake.auth, socket.handshake.headers);
  };
  const withinUserLimit: HandshakeStep = (socket) => {
    if (limit.admit(socket.conn, namespaceOf(socket), socket.data.caller.userId)) throw tooManyConnections();
  };
  const joinOwnRooms: HandshakeStep = (socket) => {
    // Not awaited: membership is local at once, and the cluster subscription behind the join's
    // promise never rejects (realtime/rooms-adapter.ts).
    void socket.join([rooms.user(socket.data.caller.userId), rooms.session(socket.data.caller.sessionId)]);
  };
  return [oneSocketPerNamespace, authenticate, withinUserLimit, joinOwnRooms];
}
