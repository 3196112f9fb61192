// Real socket.io-client connections for the realtime tests.
import { io, type Socket } from 'socket.io-client';

export type Transport = 'websocket' | 'polling';

const open: Socket[] = [];

/**
 * Connects to `namespace` with `token` (and any other handshake `auth` fields, e.g. /feed's
 * `language`); resolves once connected, rejects with the connect_error.
 */
export function connect(baseUrl: string, namespace: string, token: string | null, transport: Transport, auth: Record<string, string> = {}): Promise<Socket> {
  const socket = io(baseUrl + namespace, {
    transports: [transport],
    auth: token === null ? auth : { ...auth, token },
    reconnection: false,
    forceNew: true,
    timeout: 10_000,
  });
  open.push(socket);
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (err) => {
      socket.close();
      reject(err);
    });
  });
}

/** The connect_error of a connection that is expected to be refused. */
export async function refusal(baseUrl: string, namespace: string, token: string | null, transport: Transport): Promise<Error & { data?: any }> {
  try {
    const socket = await connect(baseUrl, namespace, token, transport);
    socket.close();
  } catch (err) {
    return err as Error;
  }
  throw new Error('connection was accepted');
}

/** The next `event` on `socket` that satisfies `match`. */
export function nextEvent<T = any>(socket: Socket, event: string, match: (payload: T) => boolean = () => true, timeoutMs = 10_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.off(event, listener);
      reject(new Error(`no ${event} within ${timeoutMs} ms`));
    }, timeoutMs);
    const listener = (payload: T) => {
      if (!match(payload)) return;
      clearTimeout(timer);
      socket.off(event, listener);
      resolve(payload);
    };
    socket.on(event, listener);
  });
}

/** Emits with an ack and resolves with the ack's answer. */
export function emitAck<T = any>(socket: Socket, event: string, payload: unknown): Promise<T> {
  return socket.timeout(10_000).emitWithAck(event, payload) as Promise<T>;
}

/** Resolves when the server disconnects `socket`. */
export function disconnected(socket: Socket, timeoutMs = 10_000): Promise<string> {
  if (!socket.connected) return Promise.resolve('already disconnected');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('still connected')), timeoutMs);
    socket.once('disconnect', (reason) => {
      clearTimeout(timer);
      resolve(reason);
    });
  });
}

export function closeAll(): void {
  for (const s of open.splice(0)) s.close();
}
