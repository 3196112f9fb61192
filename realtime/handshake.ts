// Handshake authentication for every namespace: `auth: {token}` (or an `Authorization: Bearer`
// header for non-browser clients) resolved exactly like a REST request, including the
// live-session check. A missing, bad, expired or revoked token fails the connection with the
// message `unauthorized` (CONTRACT §7); `err.data.error_code` says which.
import type { CallerResolver } from '../src/auth/caller.js';
import { AppError } from '../src/shared/errors.js';
import type { Logger } from '../src/shared/logger.js';
import { rooms, type RealtimeSocket } from './events.js';

type ConnectError = Error & { data?: { error_code: string } };

const refuse = (message: string, errorCode: string): ConnectError => Object.assign(new Error(message), { data: { error_code: errorCode } });

function tokenOf(socket: RealtimeSocket): string | null {
  const auth = socket.handshake.auth as { token?: unknown } | undefined;
  if (typeof auth?.token === 'string' && auth.token) return auth.token.replace(/^Bearer\s+/i, '');
  const header = socket.handshake.headers.authorization;
  const m = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return m ? m[1] : null;
}

export function handshakeAuth(callers: CallerResolver, log: Logger) {
  return async (socket: RealtimeSocket, next: (err?: Error) => void) => {
    const token = tokenOf(socket);
    if (!token || token.length > 4096) return next(refuse('unauthorized', 'auth.error.missing_token'));
    try {
      socket.data.caller = await callers.resolve(token);
    } catch (err) {
      if (err instanceof AppError && err.status === 401) return next(refuse('unauthorized', err.code));
      log.warn({ err: (err as Error).message }, 'socket handshake failed');
      return next(refuse('unavailable', 'service.error.unavailable'));
    }
    // Joined before `connection` fires, so a revocation published from now on reaches it.
    socket.join([rooms.user(socket.data.caller.userId), rooms.session(socket.data.caller.sessionId)]);
    next();
  };
}
