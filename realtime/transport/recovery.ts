// Connection state recovery (CONTRACT §18 "Catching up"): a client whose connection drops for
// up to two minutes reconnects with its previous session id and last event offset, and gets its
// rooms back plus every event it missed (`socket.recovered === true`), on this node (in-memory
// adapter) or any node (Redis streams adapter).
//
// Two things are added to what Socket.IO does by itself, per namespace adapter:
//
// 1. Only its owner restores a session, and only while their session is live (CONTRACT §19).
//    Socket.IO skips the handshake middlewares for a recovered socket and restores whatever
//    recovery id it is given. Here a session is persisted under its recovery id bound to the
//    session that owns it, and restored only for the claimant of the handshake
//    (realtime/transport/recovery-owner.ts: the caller its token names, checked live like a REST token):
//    another user's handshake, or one without a live token, finds nothing and starts fresh (the
//    normal handshake then refuses a bad token with `unauthorized`). The caller of the restored
//    socket is the claimant (current role and permissions; a session restored on another node
//    arrives serialised, which would not keep a permission Set anyway). All of this runs before
//    any missed event is written to the client.
//
// 2. Nothing is lost or doubled across the restore. The restored socket joins its rooms only
//    when the restore resolves, and the restore waits on I/O (the check above; with streams, the
//    reads of the stream). Events dispatched on this node meanwhile would reach nobody, so they
//    are recorded while a restore is open and appended to the missed events. With streams the
//    missed events are read with XRANGE while this node's stream reader may lag behind: an event
//    both read by XRANGE and dispatched after the socket joined would arrive twice, so the
//    restore waits (bounded) until the reader has passed the last missed offset, and appends only
//    recorded events newer than it.
import type { Namespace, Socket } from 'socket.io';
import { MessageType, type Adapter, type BroadcastOptions, type Session } from 'socket.io-adapter';
import type { Caller } from '../../src/auth/index.js';
import { ownedPid, recoveryClaimant } from './recovery-owner.js';
import { RoomsAdapter } from './rooms-adapter.js';
import { newestStoredPacketId, streamAdapterHooks } from './socketio-internals.js';

import { RECOVERY_WINDOW_MS } from './recovery-window.js';
export { RECOVERY_WINDOW_MS };

export const connectionStateRecovery = { maxDisconnectionDuration: RECOVERY_WINDOW_MS, skipMiddlewares: true };

/** How long a restore waits for this node's stream reader to catch up before going on. */
const READER_CATCH_UP_MS = 2_000;

/** The event that hands a new socket its first offset (its only argument). */
export const RECOVERY_READY = 'recovery:ready';

/** What `io.adapter()` accepts: it is called with `new`, so a plain function, not an arrow. */
export type AdapterFactory = (nsp: Namespace) => Adapter;

/**
 * `memory`: offsets are local and every later broadcast is newer; `stream`: Redis stream ids;
 * `rooms`: the rooms adapter keeps its restores exact by itself (realtime/transport/rooms-adapter.ts).
 */
export type OffsetKind = 'memory' | 'stream' | 'rooms';

interface Dispatched {
  offset: string;
  data: unknown[];
  rooms: string[];
  except: string[];
}

/** Redis stream ids ("<ms>-<seq>") in order. */
function compareStreamIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt);
  const [bm, bs] = b.split('-').map(BigInt);
  return am === bm ? Number(as - bs) : Number(am - bm);
}

const STREAM_ID = /^\d+-\d+$/;

/** The rule Socket.IO applies to missed packets: in one of the session's rooms, excluded by none. */
function reaches(rooms: string[], event: Dispatched): boolean {
  const included = event.rooms.length === 0 || rooms.some((room) => event.rooms.includes(room));
  return included && rooms.every((room) => !event.except.includes(room));
}

/** Records what one namespace adapter dispatches locally while restores are open. */
class DispatchLog {
  private readonly open = new Set<Dispatched[]>();
  /** The newest stream offset this node's reader has dispatched for the namespace. */
  private readerAt = '0-0';
  private readerWaiters: { offset: string; resolve: () => void }[] = [];

  constructor(
    private readonly adapter: Adapter,
    private readonly kind: OffsetKind,
  ) {
    if (kind === 'rooms') return;
    this.recordLocalBroadcasts(adapter);
    if (kind === 'stream') this.recordStreamDispatches(adapter);
  }

  /**
   * Gives a new socket an offset to recover from. socket.io-client only learns offsets from the
   * events it receives, so a client that had received nothing yet (a quiet /notifications, say)
   * could not recover, and what was sent while it was away would be lost. `recovery:ready` carries
   * the newest offset this node knows for the namespace; when it knows none yet, the event goes
   * through the adapter to the socket alone, which stores it and appends its offset.
   */
  announce(nsp: Namespace, socket: Socket): void {
    if (this.adapter instanceof RoomsAdapter) {
      void this.adapter.latestOffset().then((offset) => {
        if (offset && socket.connected) socket.emit(RECOVERY_READY, offset);
      });
      return;
    }
    const latest = this.latestOffset();
    if (latest) socket.emit(RECOVERY_READY, latest);
    else nsp.to(socket.id).emit(RECOVERY_READY);
  }

  private latestOffset(): string | undefined {
    if (this.kind === 'stream') return this.readerAt === '0-0' ? undefined : this.readerAt;
    return newestStoredPacketId(this.adapter);
  }

  /** Starts recording; `stop` must be called. */
  start(): Dispatched[] {
    const recorded: Dispatched[] = [];
    this.open.add(recorded);
    return recorded;
  }

  stop(recorded: Dispatched[]): void {
    this.open.delete(recorded);
  }

  /** The events to add to a restored session's missed ones, in order. */
  async newerThanMissed(session: Session, clientOffset: string, recorded: Dispatched[]): Promise<unknown[][]> {
    if (this.kind === 'rooms') return [];
    const last = session.missedPackets.at(-1)?.at(-1);
    if (this.kind === 'memory') return recorded.filter((e) => reaches(session.rooms, e)).map((e) => e.data);
    const after = typeof last === 'string' && STREAM_ID.test(last) ? last : clientOffset;
    if (compareStreamIds(this.readerAt, after) < 0) await this.readerPassed(await this.marker().catch(() => after));
    const newer = recorded
      .filter((e) => STREAM_ID.test(e.offset) && compareStreamIds(e.offset, after) > 0 && reaches(session.rooms, e))
      .sort((a, b) => compareStreamIds(a.offset, b.offset));
    // One entry per offset (an event is recorded once, but cheap to be sure).
    return newer.filter((e, i) => i === 0 || e.offset !== newer[i - 1].offset).map((e) => e.data);
  }

  private record(event: Dispatched): void {
    for (const recorded of this.open) recorded.push(event);
  }

  /** Broadcasts made on this node: the adapter appends the offset to the packet's data. */
  private recordLocalBroadcasts(adapter: Adapter): void {
    const broadcast = adapter.broadcast.bind(adapter) as (packet: { type: number; id?: number; data: unknown[] }, opts: BroadcastOptions) => unknown;
    adapter.broadcast = ((packet: { type: number; id?: number; data: unknown[] }, opts: BroadcastOptions) => {
      const length = packet.data.length;
      const done = broadcast(packet, opts);
      const note = () => {
        // Only packets the adapter stored for recovery get an offset appended.
        if (this.open.size === 0 || packet.data.length !== length + 1) return;
        this.record({ offset: String(packet.data[length]), data: packet.data, rooms: [...opts.rooms], except: [...(opts.except ?? [])] });
      };
      // The in-memory adapter dispatches at once; a cluster adapter after its publish.
      if (done instanceof Promise) return done.then(note);
      note();
      return done;
    }) as Adapter['broadcast'];
  }

  /** Broadcasts from other nodes, and how far this node's stream reader has got. */
  private recordStreamDispatches(adapter: Adapter): void {
    const cluster = streamAdapterHooks(adapter);
    cluster.afterMessage((message, offset) => {
      if (this.open.size === 0 || !offset || message.uid === cluster.uid || message.type !== MessageType.BROADCAST) return;
      const data = message.data as { requestId?: string; packet: { data: unknown[] }; opts: { rooms: string[]; except: string[] } };
      if (data.requestId !== undefined) return;
      this.record({ offset, data: data.packet.data, rooms: data.opts.rooms, except: data.opts.except });
    });
    cluster.afterRawMessage((offset) => {
      if (compareStreamIds(offset, this.readerAt) > 0) this.readerAt = offset;
      this.readerWaiters = this.readerWaiters.filter((w) => (compareStreamIds(this.readerAt, w.offset) >= 0 ? (w.resolve(), false) : true));
    });
  }

  /**
   * Appends a no-op entry for this namespace to the stream and answers its offset: it is newer
   * than everything the restore read, so once this node's reader has dispatched it, it has
   * dispatched all of those too. (Other nodes ignore a heartbeat from a plain cluster adapter.)
   */
  private marker(): Promise<string> {
    return streamAdapterHooks(this.adapter).publishAndReturnOffset({ type: MessageType.HEARTBEAT });
  }

  private readerPassed(offset: string): Promise<void> {
    if (compareStreamIds(this.readerAt, offset) >= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = { offset, resolve: () => (clearTimeout(timer), resolve()) };
      const timer = setTimeout(() => {
        this.readerWaiters = this.readerWaiters.filter((w) => w !== waiter);
        resolve();
      }, READER_CATCH_UP_MS);
      this.readerWaiters.push(waiter);
    });
  }
}

function persistedCaller(session: { data?: unknown }): { userId: string; sessionId: string } | null {
  const caller = (session.data as { caller?: Partial<Caller> } | undefined)?.caller;
  return typeof caller?.userId === 'string' && typeof caller.sessionId === 'string' ? { userId: caller.userId, sessionId: caller.sessionId } : null;
}

/** Wraps `factory` so that each namespace's adapter restores its owners' live sessions only, exactly. */
export function recoverable(factory: AdapterFactory, kind: OffsetKind): AdapterFactory {
  return function (nsp: Namespace): Adapter {
    const adapter = factory(nsp);
    const dispatched = new DispatchLog(adapter, kind);
    nsp.on('connection', (socket: Socket) => {
      if (!socket.recovered) dispatched.announce(nsp, socket);
    });
    const persist = adapter.persistSession.bind(adapter);
    adapter.persistSession = (session) => {
      const owner = persistedCaller(session);
      // A socket always has its caller; one without could never be claimed, so it is not kept.
      if (owner) return persist({ ...session, pid: ownedPid(session.pid, owner.sessionId) });
    };
    const restore = adapter.restoreSession.bind(adapter);
    adapter.restoreSession = (async (pid: string, offset: string): Promise<Session | null> => {
      const claimant = recoveryClaimant();
      if (!claimant) return null;
      const recorded = dispatched.start();
      try {
        const session = await restore(ownedPid(pid, claimant.sessionId), offset);
        if (!session) return session;
        const owner = persistedCaller(session);
        if (owner?.userId !== claimant.userId || owner.sessionId !== claimant.sessionId) return null;
        const later = await dispatched.newerThanMissed(session, offset, recorded);
        return { ...session, pid, data: { ...(session.data as object), caller: claimant }, missedPackets: [...session.missedPackets, ...later] };
      } finally {
        dispatched.stop(recorded);
      }
    }) as Adapter['restoreSession'];
    return adapter;
  };
}
