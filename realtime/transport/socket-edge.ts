// The edge between a client's socket and our code: every namespace's handshake steps, connection
// set-up and client event handlers go through here, so that nothing a client does (or fails to
// do) reaches the process as an exception (CONTRACT §19):
//
// - A client may go away at any moment: between two awaits of a handshake step, of a handler, or
//   before an ack. Each step runs only while the connection is open; a handler answers only while
//   its socket is connected, and namespace code checks `socket.connected` before it touches the
//   socket after an await (joining a room for a socket that is gone would leave the room pointing
//   at it forever). Whatever is thrown is caught here: a handshake is refused, an event answered
//   with an error ack, a failing connection set-up logged and the socket dropped.
// - Every client event, on every namespace, known or not, costs one point of the caller's
//   `general` rate limit before anything else runs (a refused one is answered
//   `{ok:false, error_code:'rate_limit.error.exceeded'}`), so a flood costs a counter each.
// - An event the namespace does not have is answered `realtime.error.unknown_event`.
// - Before each known event runs, the socket's caller is read again (roles and permissions as
//   they are now: CONTRACT §21, a role change counts from the next event, on every node).
import type { z } from 'zod';
import type { Caller } from '../../src/auth/index.js';
import type { Logger } from '../../src/shared/logger.js';
import { AppError, notFound } from '../../src/shared/errors.js';
import { parsePayload, toAckError } from './ack.js';
import type { RealtimeNamespace, RealtimeSocket } from '../socket-types.js';
import type { SocketRateLimit } from './socket-rate-limit.js';

/** A refused handshake as the client sees it: `connect_error` with this message and `data.error_code`. */
export type ConnectError = Error & { data: { error_code: string } };

export const refuse = (message: string, errorCode: string): ConnectError => Object.assign(new Error(message), { data: { error_code: errorCode } });

const isConnectError = (err: unknown): err is ConnectError =>
  err instanceof Error && typeof (err as { data?: { error_code?: unknown } }).data?.error_code === 'string';

/** Gives back what a handshake step took, when a later step refuses the socket. */
export type Undo = () => void;

/**
 * One step of a namespace's handshake: it may refuse the socket by throwing (a ConnectError as it
 * is, a 401 AppError as `unauthorized`, anything else as `unavailable`), and may return an Undo.
 */
export type HandshakeStep = (socket: RealtimeSocket) => Promise<Undo | void> | Undo | void;

/** What every handler of every namespace shares. */
export interface Edge {
  log: Logger;
  rateLimit: SocketRateLimit;
  /** The socket's caller as it is now (roles and permissions changed since the handshake). */
  refreshCaller: (caller: Caller) => Promise<Caller>;
}

/** Registers a client event: its payload is parsed with `schema`, `run`'s result is the ack's `data`. */
export type OnClientEvent = <S extends z.ZodType, T>(event: string, schema: S, run: (payload: z.output<S>) => Promise<T>) => void;

function toConnectError(err: unknown, log: Logger): ConnectError {
  if (isConnectError(err)) return err;
  if (err instanceof AppError && err.status === 401) return refuse('unauthorized', err.code);
  log.warn({ err: (err as Error)?.message }, 'socket handshake failed');
  return refuse('unavailable', 'service.error.unavailable');
}

/** The last argument, when it is the ack callback (Socket.IO appends one when the client asked for it). */
function ackOf(args: unknown[]): ((result: unknown) => void) | null {
  const last = args.at(-1);
  return typeof last === 'function' ? (last as (result: unknown) => void) : null;
}

/** One namespace's edge: its handshake steps, its connection set-up and its client events. */
export class NamespaceEdge {
  private readonly steps: HandshakeStep[] = [];
  private readonly known = new Set<string>();

  constructor(
    readonly nsp: RealtimeNamespace,
    private readonly edge: Edge,
  ) {
    nsp.use((socket, next) => this.handshake(socket, next));
    nsp.on('connection', (socket: RealtimeSocket) => this.answerUnknownEvents(socket));
  }

  /** Adds a handshake step, run after the ones added before it. */
  use(step: HandshakeStep): void {
    this.steps.push(step);
  }

  /**
   * Runs `setup` for every socket that connects (new or restored by recovery), with `on` to
   * register its client events. A throw is logged and the socket disconnected.
   */
  onConnection(setup: (socket: RealtimeSocket, on: OnClientEvent) => void): void {
    this.nsp.on('connection', (socket: RealtimeSocket) => {
      try {
        setup(socket, (event, schema, run) => this.handle(socket, event, schema, run));
      } catch (err) {
        this.edge.log.error({ err, namespace: this.nsp.name }, 'socket set-up failed');
        socket.disconnect(true);
      }
    });
  }

  private handshake(socket: RealtimeSocket, next: (err?: Error) => void): void {
    const undos: Undo[] = [];
    const run = async () => {
      for (const step of this.steps) {
        // Gone: stop here. next() still has to be called: Socket.IO then drops the socket itself.
        if (socket.conn.readyState !== 'open') return;
        const undo = await step(socket);
        if (undo) undos.push(undo);
      }
    };
    run()
      .then(
        () => next(),
        (err: unknown) => {
          for (const undo of undos.reverse()) undo();
          next(toConnectError(err, this.edge.log));
        },
      )
      .catch((err: unknown) => this.edge.log.error({ err, namespace: this.nsp.name }, 'socket handshake failed unexpectedly'));
  }

  private handle<S extends z.ZodType, T>(socket: RealtimeSocket, event: string, schema: S, run: (payload: z.output<S>) => Promise<T>): void {
    this.known.add(event);
    const listener = (...args: unknown[]) => {
      const ack = ackOf(args);
      const payload = args.length > (ack ? 1 : 0) ? args[0] : undefined;
      this.answer(socket, ack, async () => {
        const data = await run(parsePayload(schema, payload));
        return data === undefined ? { ok: true } : { ok: true, data };
      });
    };
    // A client event named at run time: the socket's typed `on` only takes the declared names.
    // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to its own receiver
    Reflect.apply(socket.on, socket, [event, listener]);
  }

  private answerUnknownEvents(socket: RealtimeSocket): void {
    socket.onAny((event: unknown, ...args: unknown[]) => {
      if (typeof event === 'string' && this.known.has(event)) return;
      this.answer(socket, ackOf(args), async () => {
        throw notFound('realtime.error.unknown_event', `This namespace has no such event`);
      });
    });
  }

  /** Counts the event, runs `work` and acks its result or its error, while the socket is there. */
  private answer(socket: RealtimeSocket, ack: ((result: unknown) => void) | null, work: () => Promise<unknown>): void {
    const { log, rateLimit, refreshCaller } = this.edge;
    const reply = (result: unknown) => {
      if (ack && socket.connected) ack(result);
    };
    const run = async () => {
      try {
        await rateLimit(socket.data.caller.userId);
        if (!socket.connected) return;
        // A role change (CONTRACT §21) counts from the next event: the caller is read again (the
        // read model's session cache, dropped on every node by the change) and updated in place,
        // so handlers that hold it see the new roles and permissions.
        Object.assign(socket.data.caller, await refreshCaller(socket.data.caller));
        if (!socket.connected) return;
        reply(await work());
      } catch (err) {
        reply(toAckError(err, log));
      }
    };
    run().catch((err: unknown) => log.error({ err, namespace: this.nsp.name }, 'socket event failed unexpectedly'));
  }
}
