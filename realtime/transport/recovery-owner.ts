// Who may recover a Socket.IO session (CONTRACT §19): only a handshake whose token belongs to the
// user and the live session the session was opened under; anyone else (another user, no token,
// an ended session) starts fresh, and gets none of the session's missed or live events.
//
// Socket.IO restores a session from the recovery id and offset a client sends (`auth.pid`,
// `auth.offset`), before any middleware and without looking at the token, and writes the missed
// events to the client as soon as it has built the socket. So the check has to come first:
// - before the namespace builds a socket that asks to recover, the handshake's token is resolved
//   (the same live-session check as REST) and the caller made the *claimant* of the restore, which
//   the adapter's `restoreSession` reads (realtime/transport/recovery.ts) while it runs;
// - sessions are stored under their recovery id bound to the owning session (`ownedPid`), so a
//   restore looks up only the claimant's own sessions: someone else's recovery id finds nothing,
//   and their attempt leaves the owner's session where it is (the Redis adapter deletes a
//   session when it restores it).
// The hook is Socket.IO's `Namespace._createSocket(client, auth)` (socket.io 4.8, not in its
// types); test/realtime/recovery-theft.test.ts fails if a new version stops calling it.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Namespace } from 'socket.io';
import type { Caller, CallerResolver } from '../../src/auth/index.js';
import type { Logger } from '../../src/shared/logger.js';
import { AppError } from '../../src/shared/errors.js';
import type { ConnectionLimit } from './connection-limit.js';
import { handshakeCaller } from './handshake.js';
import { wrapCreateSocket } from './socketio-internals.js';

const claimants = new AsyncLocalStorage<Caller>();

/** The caller whose handshake asks for the restore now running; null when nobody live does. */
export function recoveryClaimant(): Caller | null {
  return claimants.getStore() ?? null;
}

/** The key a persisted session is stored under: its recovery id bound to the session that owns it. */
export const ownedPid = (pid: string, sessionId: string): string => `${pid}.${sessionId}`;

type Auth = Record<string, unknown>;

const asksToRecover = (auth: Auth): boolean => typeof auth?.pid === 'string' && typeof auth?.offset === 'string';

function withoutRecovery(auth: Auth): Auth {
  const { pid: _pid, offset: _offset, ...rest } = auth;
  return rest;
}

/**
 * Resolves the claimant of every recovery a handshake of `nsp` asks for, and keeps the connection
 * limits for restored sockets (they skip the handshake steps): a restore that would take a place
 * the limits refuse starts fresh instead, and the fresh handshake refuses it.
 */
export function checkRecoveryClaims(nsp: Namespace, callers: CallerResolver, limit: ConnectionLimit, log: Logger): void {
  wrapCreateSocket(nsp, (create) => async (client, auth) => {
    if (!asksToRecover(auth)) return create(client, auth);
    const fresh = () => create(client, withoutRecovery(auth));
    // A second socket of this namespace on this connection: the fresh handshake refuses it.
    if (limit.enter(client.conn, nsp.name)) return fresh();
    const giveBack = () => limit.leave(client.conn, nsp.name);
    let claimant: Caller;
    try {
      claimant = await handshakeCaller(callers, auth, client.request.headers);
    } catch (err) {
      if (!(err instanceof AppError && err.status === 401)) log.warn({ err: (err as Error).message }, 'socket recovery check failed');
      giveBack();
      return fresh();
    }
    if (limit.admit(client.conn, nsp.name, claimant.userId)) {
      giveBack();
      return fresh();
    }
    const socket = await claimants.run(claimant, () => create(client, auth));
    if (socket.recovered) socket.once('disconnect', giveBack);
    else giveBack(); // the fresh handshake takes its own place
    return socket;
  });
}
