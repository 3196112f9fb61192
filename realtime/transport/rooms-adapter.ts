/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access -- socket.io-adapter types an adapter's `nsp` as `any` */
// The default cross-node adapter (`REALTIME_ADAPTER=rooms`, CONTRACT §25 with §18 and §14):
// node-local delivery AND recovery on any node, which no published adapter gives together.
//
// Delivery: Redis 7 sharded pub/sub, one channel per public room (`<prefix>socket.io#<nsp>#<room>#`),
// subscribed by a node only while it has a socket in the room (or while it restores a session
// that had it): a room's events reach only the nodes that serve its members, and a user's
// (`user:<id>` rooms) only the nodes where the user has sockets. Broadcasts to several rooms, to
// a socket id or to the whole namespace, and the cluster's own requests (joins, disconnects,
// fetchSockets), use the namespace's channel, which every node reads (as `createShardedAdapter`
// does in its "dynamic" mode).
//
// Recovery: every storable broadcast (an event without ack, not volatile) is also written, by the
// same Lua script that publishes it, to a capped Redis stream per target room (or per namespace
// for a namespace-wide emit) that nobody reads until a session recovers. Entries carry ids from
// one counter per namespace, so the offset a client holds (`<n>-0.<epoch>`) orders events across
// rooms; the epoch is named anew whenever Redis has lost the namespace's clock (NAME_EPOCH), so
// offsets from before a Redis restart are never compared with new ones, and a node that finds,
// after its subscriber dropped, that the dataset it was reading is gone disconnects its sockets
// of the namespace (`datasetLost`): what it missed went with the old dataset. A stream is capped (STREAM_CAP entries, the cut point kept beside
// it) and expires RECOVERY_WINDOW_MS + 30 s after its last write: a quiet room costs nothing.
// A restore reads the session (GETDEL), subscribes to its rooms' channels first, then reads, in
// one script, the counter and the entries after the client's offset in each of its rooms; events
// this node dispatches meanwhile with a newer id are appended, so each arrives once.
//
// Redis outages (CONTRACT §14): local sockets are served at once; what should cross nodes waits in
// an outbox (at most REALTIME_OUTBOX_MAX_EVENTS or OUTBOX_MAX_AGE_MS, oldest dropped first,
// logged and counted) and is published, in order, when Redis is back. A node whose subscriptions
// dropped reads, once re-subscribed, what its rooms got meanwhile from their streams (so the order
// in which the nodes come back does not matter). If the outbox had to drop events, a *gap* entry
// is written to the streams of the rooms concerned and published like an event: the other nodes
// disconnect their sockets of those rooms (when they hear it, or when they catch up from the
// streams: a node whose subscriber came back after the publish still sees it), so their clients
// re-sync, and a session restored later from an offset before the gap starts fresh instead of
// recovering with events missing.
//
// Socket.IO's adapter internals this relies on (the ClusterAdapter contract of socket.io-adapter
// 2.5, pinned in package.json) are used here only.
import { Redis } from 'ioredis';
import type { Namespace } from 'socket.io';
import {
  Adapter,
  ClusterAdapter,
  MessageType,
  type BroadcastOptions,
  type ClusterMessage,
  type ClusterResponse,
  type Offset,
  type Room,
  type Session,
} from 'socket.io-adapter';
import type { Logger } from '../../src/shared/logger.js';
import { RECOVERY_WINDOW_MS } from './recovery-window.js';

/** Entries kept per room stream (beyond it the oldest go, and a session that needed them starts fresh). */
export const STREAM_CAP = 1_000;
const TRIM_BATCH = 64;
const STREAM_TTL_MS = RECOVERY_WINDOW_MS + 30_000;
export const OUTBOX_MAX_AGE_MS = 60_000;
/** Rooms remembered for the disconnect after an overflow; past it, the whole namespace. */
const DROPPED_ROOMS_MAX = 1_000;
const PIN_RELEASE_MS = 1_000;
/** How long a restore looks for a session that is not (yet) in Redis. */
const SESSION_WAIT_MS = 3_000;
/** Pause between two tries of a catch-up that could not read (Redis not ready yet on the publishing connection). */
const CATCH_UP_RETRY_MS = 250;

// The namespace's clock is one hash, `n` (the last entry id) and `epoch`: a Redis that lost it
// (restarted empty, flushed, or the key evicted) loses both together, and the next script names a
// new epoch from the node's candidate and Redis's own clock, so it never repeats an earlier one
// (a fixed value per node would: a node that named the old dataset's epoch would name the new
// one's the same, and the other nodes would read the new entries as if they came after the old).
const NAME_EPOCH = `
local function clockEpoch(clock, candidate)
  local epoch = redis.call('HGET', clock, 'epoch')
  if not epoch then
    local t = redis.call('TIME')
    epoch = candidate .. string.format('%x%05x', tonumber(t[1]), tonumber(t[2]))
    redis.call('HSET', clock, 'epoch', epoch)
  end
  return epoch
end
`;

// KEYS: clock, streams… ARGV: channel ('' = none), message, cap, ttl, epoch candidate, batch
const PUBLISH_SCRIPT = `${NAME_EPOCH}
local epoch = clockEpoch(KEYS[1], ARGV[5])
local id = ''
if #KEYS > 1 then
  id = redis.call('HINCRBY', KEYS[1], 'n', 1) .. '-0'
  local cap = tonumber(ARGV[3])
  local batch = tonumber(ARGV[6])
  for i = 2, #KEYS do
    local key = KEYS[i]
    redis.call('XADD', key, id, 'm', ARGV[2])
    if redis.call('XLEN', key) > cap + batch then
      local old = redis.call('XRANGE', key, '-', '+', 'COUNT', batch + 1)
      redis.call('XTRIM', key, 'MINID', old[batch + 1][1])
      redis.call('SET', key .. '!cut', old[batch][1])
    end
    redis.call('PEXPIRE', key, ARGV[4])
    redis.call('PEXPIRE', key .. '!cut', ARGV[4])
  end
end
local offset = ''
if id ~= '' then offset = id .. '.' .. epoch end
if ARGV[1] ~= '' then redis.call('SPUBLISH', ARGV[1], offset .. '|' .. ARGV[2]) end
return offset
`;

// KEYS: clock. ARGV: epoch candidate. Answers {n, epoch}, naming the epoch when there is none.
const CLOCK_SCRIPT = `${NAME_EPOCH}
local epoch = clockEpoch(KEYS[1], ARGV[1])
return {redis.call('HGET', KEYS[1], 'n') or '0', epoch}
`;

// KEYS: clock, streams… ARGV: after (stream id, exclusive; '0-0' for all)
// Answers {seq, epoch ('' when the clock is gone), trimmed (0/1), id1, m1, id2, m2, …}.
const READ_SCRIPT = `
local seq = redis.call('HGET', KEYS[1], 'n') or '0'
local epoch = redis.call('HGET', KEYS[1], 'epoch') or ''
local after = tonumber(string.match(ARGV[1], '^(%d+)'))
local out = {seq, epoch, 0}
for i = 2, #KEYS do
  local cut = redis.call('GET', KEYS[i] .. '!cut')
  if cut and tonumber(string.match(cut, '^(%d+)')) > after then out[3] = 1 end
  local entries = redis.call('XRANGE', KEYS[i], '(' .. ARGV[1], '+')
  for _, e in ipairs(entries) do
    table.insert(out, e[1])
    table.insert(out, e[2][2])
  end
end
return out
`;

type Broadcast = Extract<ClusterMessage, { type: MessageType.BROADCAST }>;
/** A gap entry: the sockets of `opts.rooms` (all when empty) may have missed events (an outbox overflowed). */
type Gap = Extract<ClusterMessage, { type: MessageType.DISCONNECT_SOCKETS }>;
type EncodedOptions = Broadcast['data']['opts'];
type EventPacket = { type: number; id?: number; data: unknown[]; nsp?: string };

/** An offset of this adapter: `<seq>-0.<epoch>`. */
const OFFSET = /^(\d+)-0\.([A-Za-z0-9]+)$/;

function parseOffset(offset: string): { seq: number; epoch: string } | null {
  const match = OFFSET.exec(offset);
  return match ? { seq: Number(match[1]), epoch: match[2] } : null;
}

/** Socket.IO socket ids are 20 characters; our public rooms (user:…, chat:…, session:…) are longer. */
const looksLikeSocketId = (room: string): boolean => room.length === 20;

function encodeOptions(opts: BroadcastOptions): EncodedOptions {
  return { rooms: [...opts.rooms], except: [...(opts.except ?? [])], flags: opts.flags ?? {} };
}

function decodeOptions(opts: EncodedOptions): BroadcastOptions {
  return { rooms: new Set(opts.rooms), except: new Set(opts.except), flags: opts.flags };
}

/** The rule Socket.IO applies to missed packets: in one of the session's rooms, excluded by none. */
function reaches(rooms: readonly string[], opts: EncodedOptions): boolean {
  const included = opts.rooms.length === 0 || rooms.some((room) => opts.rooms.includes(room));
  return included && rooms.every((room) => !opts.except.includes(room));
}

interface Stored {
  seq: number;
  offset: string;
  message: Broadcast;
  /** Published to be delivered on the publishing node when it comes back on the channel (see `broadcast`). */
  echo: boolean;
}

/** One queued publish of the outbox. */
interface Pending {
  nsp: string;
  keys: string[];
  channel: string;
  /** The ClusterMessage as JSON. */
  json: string;
  /** Whether the publishing node delivers it when it comes back on the channel (false once queued). */
  echo: boolean;
  rooms: string[];
  at: number;
}

export interface RoomsAdapterStats {
  /** Cluster messages this node received (all channels). */
  received: number;
  /** Broadcasts published (or queued) by this node. */
  published: number;
  /** Broadcasts waiting in the outbox now. */
  queued: number;
  /** Broadcasts dropped from a full outbox since start. */
  dropped: number;
  /** Room channels this node is subscribed to now, every namespace together. */
  subscribedRooms: number;
  /** Whether the publishing connection is up (false: broadcasts for the other nodes go to the outbox). */
  connected: boolean;
}

/**
 * The Redis connections and state every namespace's adapter shares: the publisher (no offline
 * queue: a command during an outage fails at once and goes to the outbox), the subscriber (keeps
 * its subscriptions across reconnects), the outbox, the epoch candidate.
 */
export class RoomsCluster {
  readonly pub: Redis;
  readonly sub: Redis;
  private readonly handlers = new Map<string, (payload: Buffer) => void>();
  private readonly adapters = new Set<RoomsAdapter>();
  private readonly outbox: Pending[] = [];
  private flushing = false;
  private subDropped = false;
  private closing = false;
  private down = false;
  /** This node's part of the epochs it names (Redis's clock makes each one new). */
  readonly epochCandidate = Math.random().toString(36).slice(2, 8).padEnd(6, '0');
  readonly stats: RoomsAdapterStats = { received: 0, published: 0, queued: 0, dropped: 0, subscribedRooms: 0, connected: false };
  /** Rooms (per namespace) whose events the outbox dropped; '' stands for the whole namespace. */
  private readonly droppedRooms = new Map<string, Set<string>>();

  constructor(
    url: string,
    readonly prefix: string,
    readonly log: Logger,
    /** REALTIME_OUTBOX_MAX_EVENTS. */
    private readonly outboxMaxEvents: number,
  ) {
    this.pub = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectionName: 'socket.io-rooms-pub' });
    this.sub = new Redis(url, { maxRetriesPerRequest: null, connectionName: 'socket.io-rooms-sub' });
    this.pub.defineCommand('roomsPublish', { lua: PUBLISH_SCRIPT });
    this.pub.defineCommand('roomsRead', { lua: READ_SCRIPT });
    this.pub.defineCommand('roomsClock', { lua: CLOCK_SCRIPT });
    for (const client of [this.pub, this.sub]) client.on('error', (err: Error) => this.warn(err));
    this.pub.on('close', () => {
      this.stats.connected = false;
    });
    this.pub.on('ready', () => {
      this.stats.connected = true;
      if (this.down) this.log.info('realtime Redis back');
      this.down = false;
      void this.flush();
    });
    this.sub.on('smessageBuffer', (channel: Buffer, payload: Buffer) => {
      this.stats.received++;
      this.handlers.get(channel.toString())?.(payload);
    });
    this.sub.on('close', () => {
      if (this.closing) return;
      this.subDropped = true;
      for (const adapter of this.adapters) adapter.lostSight();
    });
    this.sub.on('ready', () => {
      if (!this.subDropped) return;
      this.subDropped = false;
      for (const adapter of this.adapters) void adapter.catchUp();
    });
  }

  private warn(err: Error): void {
    if (this.down || this.closing) return;
    this.down = true;
    this.log.warn({ err: err.message }, 'realtime Redis unavailable: cross-node events wait in the outbox until it returns');
  }

  register(adapter: RoomsAdapter): void {
    this.adapters.add(adapter);
  }

  unregister(adapter: RoomsAdapter): void {
    this.adapters.delete(adapter);
  }

  /** Subscribes `channel` (resolves once Redis has it; never rejects: the subscriber retries by itself). */
  subscribe(channel: string, handler: (payload: Buffer) => void): Promise<void> {
    this.handlers.set(channel, handler);
    this.stats.subscribedRooms = this.handlers.size;
    return this.sub.ssubscribe(channel).then(
      () => undefined,
      () => undefined,
    );
  }

  unsubscribe(channel: string): void {
    if (!this.handlers.delete(channel)) return;
    this.stats.subscribedRooms = this.handlers.size;
    this.sub.sunsubscribe(channel).catch(() => undefined);
  }

  /** Re-subscribes (awaited) the channels given, after a reconnect: ioredis does it too, without telling when it is done. */
  resubscribe(channels: string[]): Promise<void> {
    if (channels.length === 0) return Promise.resolve();
    return this.sub.ssubscribe(...channels).then(
      () => undefined,
      () => undefined,
    );
  }

  /** Plain publish of a message nobody stores (cluster requests, responses); rejects during an outage. */
  async publish(channel: string, message: string): Promise<void> {
    await this.pub.spublish(channel, '|' + message);
  }

  /**
   * Publishes (and stores under `keys`) a broadcast; resolves with its offset ('' when not
   * stored), or null when it was queued because Redis is away (or dropped, for a volatile one).
   */
  send(pending: Omit<Pending, 'at'>, volatile: boolean): Promise<string | null> {
    this.stats.published++;
    const item = { ...pending, at: Date.now() };
    if (this.outbox.length > 0 || this.pub.status !== 'ready') {
      if (!volatile) this.enqueue({ ...item, echo: false });
      return Promise.resolve(null);
    }
    return this.run(item).then(
      (offset) => offset,
      () => {
        // Failed on the way (Redis went away): queue it, in order with whatever follows.
        if (!volatile) this.enqueue({ ...item, echo: false });
        return null;
      },
    );
  }

  /** Stores and publishes at once, without the outbox: rejects while Redis is away (a gap entry, `announceGap`). */
  storeNow(keys: string[], channel: string, json: string): Promise<string> {
    return this.run({ nsp: '', keys, channel, json, echo: false, rooms: [], at: Date.now() });
  }

  private run(item: Pending): Promise<string> {
    return this.pub.roomsPublish(
      item.keys.length,
      ...item.keys,
      item.channel,
      (item.echo ? 'e' : '-') + item.json,
      STREAM_CAP,
      STREAM_TTL_MS,
      this.epochCandidate,
      TRIM_BATCH,
    );
  }

  private enqueue(item: Pending): void {
    this.outbox.push(item);
    const now = Date.now();
    while (this.outbox.length > this.outboxMaxEvents || (this.outbox.length > 0 && now - this.outbox[0].at > OUTBOX_MAX_AGE_MS)) {
      const dropped = this.outbox.shift()!;
      this.stats.dropped++;
      if (this.stats.dropped === 1 || this.stats.dropped % 1000 === 0) {
        this.log.warn(
          { dropped: this.stats.dropped },
          'realtime outbox full: oldest cross-node events dropped; their rooms will be re-synced when Redis returns',
        );
      }
      const rooms = this.droppedRooms.get(dropped.nsp) ?? new Set<string>();
      this.droppedRooms.set(dropped.nsp, rooms);
      if (dropped.rooms.length === 0 || rooms.size + dropped.rooms.length > DROPPED_ROOMS_MAX) rooms.add('');
      else for (const room of dropped.rooms) rooms.add(room);
    }
    this.stats.queued = this.outbox.length;
  }

  /** Sends the outbox in order once Redis is back, then tells the other nodes to drop what may have missed events. */
  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.outbox.length > 0 && this.pub.status === 'ready') {
        const item = this.outbox[0];
        try {
          await this.run(item);
        } catch {
          break; // Redis went away again: keep it first in line
        }
        this.outbox.shift();
        this.stats.queued = this.outbox.length;
      }
      if (this.outbox.length === 0 && this.droppedRooms.size > 0) {
        for (const adapter of this.adapters) {
          const rooms = this.droppedRooms.get(adapter.nsp.name);
          if (!rooms) continue;
          try {
            await adapter.announceGap(rooms.has('') ? [] : [...rooms]);
          } catch {
            return; // Redis went away again: announced on the next flush
          }
          this.droppedRooms.delete(adapter.nsp.name);
        }
        this.log.warn('realtime outbox overflowed during the outage: sockets of the rooms concerned disconnected on the other nodes');
        this.droppedRooms.clear();
      }
    } finally {
      this.flushing = false;
    }
  }

  /** Resolves once everything sent so far has reached Redis (bounded): PING is answered after it. */
  async flushed(timeoutMs: number): Promise<void> {
    await Promise.race([this.pub.ping().catch(() => undefined), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
  }

  get closed(): boolean {
    return this.closing;
  }

  close(): void {
    this.closing = true;
    this.pub.disconnect();
    this.sub.disconnect();
  }
}

declare module 'ioredis' {
  // The type parameter's name must be ioredis's own for the declarations to merge.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface RedisCommander<Context> {
    roomsPublish(numKeys: number, ...args: (string | number)[]): Promise<string>;
    roomsRead(numKeys: number, ...args: (string | number)[]): Promise<(string | number)[]>;
    roomsClock(numKeys: number, ...args: (string | number)[]): Promise<[string, string]>;
  }
}

export class RoomsAdapter extends ClusterAdapter {
  private readonly channel: string;
  private readonly responseChannel: string;
  private readonly keyPrefix: string;
  /** Restores (or a catch-up) in progress: each collects the stored broadcasts this node dispatches meanwhile. */
  private readonly recorders = new Set<Stored[]>();
  /** Rooms subscribed on behalf of a session being restored (room → restores holding it). */
  private readonly pins = new Map<string, number>();
  /** Room channels subscribed (or being subscribed); `ready` once Redis confirmed. */
  private readonly subscribed = new Map<string, { done: Promise<void>; ready: boolean }>();
  private mainReady = false;
  /** The newest offset this node has dispatched for the namespace, and its epoch. */
  private latest: { seq: number; epoch: string; offset: string } | null = null;
  /** While a catch-up runs, incoming broadcasts wait here (in order) so nothing overtakes what it reads. */
  private held: Buffer[] | null = null;
  /** Ids the last catch-up dispatched: the same events may still arrive on the channel. */
  private caughtUp: { epoch: string; max: number; ids: Set<number> } | null = null;
  /** The newest stored broadcast this node received from the channels (where a catch-up starts). */
  private received: { seq: number; epoch: string } | null = null;
  /** The epoch this node was reading when its subscriber dropped, until a catch-up has compared it. */
  private readingBeforeDrop: string | null = null;

  constructor(
    nsp: Namespace,
    private readonly cluster: RoomsCluster,
  ) {
    super(nsp);
    const base = `${cluster.prefix}socket.io`;
    this.channel = `${base}#${nsp.name}#`;
    this.responseChannel = `${base}#${nsp.name}#${this.uid}#`;
    this.keyPrefix = `${base}:`;
    cluster.register(this);
    const onMessage = (payload: Buffer) => this.onPayload(payload);
    // Once subscribed, the counter is where a later catch-up would start.
    void cluster.subscribe(this.channel, onMessage).then(() => {
      this.mainReady = true;
      return this.clock().then(
        ([seq, epoch]) => this.markReceived(Number(seq), epoch),
        () => undefined,
      );
    });
    void cluster.subscribe(this.responseChannel, (payload) => this.onResponsePayload(payload));
    // Fire and forget: a subscription never rejects, and joins wait for it through addAll.
    this.on('create-room', (room: Room) => void this.syncSubscription(room));
    this.on('delete-room', (room: Room) => void this.syncSubscription(room));
  }

  /** The Redis clients (read by realtime/transport/metrics.ts for connection errors). */
  get pubClient(): Redis {
    return this.cluster.pub;
  }

  get subClient(): Redis {
    return this.cluster.sub;
  }

  /** The namespace's clock: the last entry id and the dataset's epoch (NAME_EPOCH). */
  private clockKey(): string {
    return `${this.keyPrefix}clock#${this.nsp.name}`;
  }

  /** The clock's `[n, epoch]`, naming the epoch if Redis has none. */
  private clock(): Promise<[string, string]> {
    return this.cluster.pub.roomsClock(1, this.clockKey(), this.cluster.epochCandidate);
  }

  /** The recovery stream of a room, or of the whole namespace (`null`). */
  private streamKey(room: Room | null): string {
    return room === null ? `${this.keyPrefix}log#${this.nsp.name}#*` : `${this.keyPrefix}log#${this.nsp.name}#=${room}`;
  }

  private roomChannel(room: Room): string {
    return `${this.channel}${room}#`;
  }

  // ---- subscriptions: a room's channel while this node has a member in it or restores one ----

  private wantsChannel(room: Room): boolean {
    return !looksLikeSocketId(room) && (this.rooms.has(room) || (this.pins.get(room) ?? 0) > 0);
  }

  private syncSubscription(room: Room): Promise<void> {
    if (looksLikeSocketId(room)) return Promise.resolve();
    const channel = this.roomChannel(room);
    const current = this.subscribed.get(room);
    if (this.wantsChannel(room)) {
      if (current) return current.done;
      const entry = { done: Promise.resolve(), ready: false };
      entry.done = this.cluster
        .subscribe(channel, (payload) => this.onPayload(payload))
        .then(() => {
          entry.ready = true;
        });
      this.subscribed.set(room, entry);
      return entry.done;
    }
    if (current) {
      this.subscribed.delete(room);
      this.cluster.unsubscribe(channel);
    }
    return Promise.resolve();
  }

  /** Joins resolve once this node receives the rooms' events (socket.join can be awaited). */
  override addAll(id: string, rooms: Set<Room>): Promise<void> | void {
    const done = super.addAll(id, rooms);
    const waits = [...rooms]
      .map((room) => this.subscribed.get(room))
      .filter((e) => e !== undefined && !e.ready)
      .map((e) => e!.done);
    if (waits.length === 0) return done;
    return Promise.all([done, ...waits]).then(() => undefined);
  }

  private async pin(rooms: Room[]): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const room of rooms) {
      if (looksLikeSocketId(room)) continue;
      this.pins.set(room, (this.pins.get(room) ?? 0) + 1);
      waits.push(this.syncSubscription(room));
    }
    await Promise.all(waits);
  }

  private unpin(rooms: Room[]): void {
    for (const room of rooms) {
      if (looksLikeSocketId(room)) continue;
      const left = (this.pins.get(room) ?? 1) - 1;
      if (left <= 0) this.pins.delete(room);
      else this.pins.set(room, left);
      void this.syncSubscription(room);
    }
  }

  // ---- publishing ----

  /**
   * Publishes the broadcast (and stores it, when Socket.IO would, for recovery) and then delivers
   * it to this node's sockets with its offset, as ClusterAdapter does. While Redis is away it is
   * delivered here at once, without an offset, and waits in the outbox for the other nodes.
   */
  override async broadcast(packet: EventPacket, opts: BroadcastOptions): Promise<void> {
    if (!opts.flags?.local) {
      const encoded = encodeOptions(opts);
      const message: Broadcast = { uid: this.uid, nsp: this.nsp.name, type: MessageType.BROADCAST, data: { packet, opts: encoded } };
      const storable = this.storable(packet, opts);
      const single = encoded.rooms.length === 1 && !looksLikeSocketId(encoded.rooms[0]);
      const streams = storable ? (encoded.rooms.length === 0 ? [this.streamKey(null)] : encoded.rooms.map((r) => this.streamKey(r))) : [];
      // Offsets must reach each socket in id order (a client recovers from the last one it got),
      // and other nodes' events arrive on the subscriber: so where this node is subscribed to the
      // channel, its own stored events are delivered when they come back on it too, in order.
      // An emit to one of this node's own sockets (Socket.IO sends every socket.emit through the
      // adapter when recovery is on) is stored for recovery but published to nobody.
      const ownSocket = encoded.rooms.length === 1 && this.sids.has(encoded.rooms[0]);
      const echo = storable && !ownSocket && (single ? this.subscribed.get(encoded.rooms[0])?.ready === true : this.mainReady);
      const offset = await this.cluster.send(
        {
          nsp: this.nsp.name,
          keys: [this.clockKey(), ...streams],
          channel: ownSocket ? '' : single ? this.roomChannel(encoded.rooms[0]) : this.channel,
          json: JSON.stringify(message),
          echo,
          rooms: encoded.rooms,
        },
        opts.flags?.volatile !== undefined,
      );
      const parsed = offset ? parseOffset(offset) : null;
      if (offset && parsed) {
        if (echo) return; // delivered when it comes back on the channel
        this.noteDispatched({
          seq: parsed.seq,
          offset,
          echo,
          message: { ...message, data: { ...message.data, packet: { ...packet, data: [...packet.data] } } },
        });
        packet.data.push(offset);
      }
    }
    Adapter.prototype.broadcast.call(this, packet, opts);
  }

  /** Whether Socket.IO would store the packet for recovery (the rule of ClusterAdapter.addOffsetIfNecessary). */
  private storable(packet: EventPacket, opts: BroadcastOptions): boolean {
    return Boolean(this.nsp.server.opts.connectionStateRecovery) && packet.type === 2 && packet.id === undefined && opts.flags?.volatile === undefined;
  }

  protected override doPublish(message: ClusterMessage): Promise<Offset> {
    return this.cluster.publish(this.channel, JSON.stringify(message)).then(() => '');
  }

  protected override doPublishResponse(requesterUid: string, response: ClusterResponse): Promise<void> {
    return this.cluster.publish(`${this.channel}${requesterUid}#`, JSON.stringify(response));
  }

  override serverCount(): Promise<number> {
    return this.cluster.pub.call('PUBSUB', 'SHARDNUMSUB', this.channel).then((reply) => (Array.isArray(reply) ? Number(reply[1]) : 1));
  }

  /**
   * After an outbox overflow: a gap entry for `rooms` (all the namespace when empty), stored in
   * their streams and published to every node. The other nodes disconnect their sockets of those
   * rooms, so their clients re-sync (heard live in `onPayload`, or read by `catchUp` when a node's
   * subscriber came back after this publish), and a session restored from an offset before it
   * starts fresh (`restoreSession`). Rejects while Redis is away (the next flush tries again).
   */
  async announceGap(rooms: string[]): Promise<void> {
    const gap: Gap = { uid: this.uid, nsp: this.nsp.name, type: MessageType.DISCONNECT_SOCKETS, data: { opts: { rooms, except: [], flags: {} }, close: true } };
    const streams = rooms.length === 0 ? [this.streamKey(null)] : rooms.map((room) => this.streamKey(room));
    await this.cluster.storeNow([this.clockKey(), ...streams], this.channel, JSON.stringify(gap));
  }

  // ---- receiving ----

  private onResponsePayload(payload: Buffer): void {
    const split = payload.indexOf(0x7c); // '|'
    try {
      this.onResponse(JSON.parse(payload.subarray(split + 1).toString()));
    } catch {
      // not ours
    }
  }

  private onPayload(payload: Buffer): void {
    if (this.held) {
      this.held.push(payload);
      return;
    }
    const split = payload.indexOf(0x7c);
    if (split < 0) return;
    // Stored broadcasts carry a flag before their JSON: 'e' (delivered by its publisher on echo) or '-'.
    const flag = payload[split + 1];
    const echo = flag === 0x65;
    let message: ClusterMessage;
    try {
      message = JSON.parse(payload.subarray(split + (echo || flag === 0x2d ? 2 : 1)).toString());
    } catch {
      return;
    }
    if (message.nsp !== this.nsp.name) return;
    const offset = payload.subarray(0, split).toString();
    const parsed = parseOffset(offset);
    if (message.type === MessageType.DISCONNECT_SOCKETS && parsed) {
      // A gap entry: acted on once, whether heard here or read by a catch-up first.
      this.markReceived(parsed.seq, parsed.epoch);
      if (this.caughtUp?.epoch === parsed.epoch && this.caughtUp.ids.has(parsed.seq)) return;
      if (message.uid !== this.uid) this.onMessage(message);
      return;
    }
    if (message.type !== MessageType.BROADCAST || message.data.requestId !== undefined) {
      if (message.uid !== this.uid) this.onMessage(message);
      return;
    }
    if (parsed) this.markReceived(parsed.seq, parsed.epoch);
    if (message.uid === this.uid && !echo) return; // delivered here when it was published
    if (!parsed) {
      Adapter.prototype.broadcast.call(this, message.data.packet, decodeOptions(message.data.opts));
      return;
    }
    if (this.caughtUp) {
      if (this.caughtUp.epoch === parsed.epoch && parsed.seq <= this.caughtUp.max && this.caughtUp.ids.has(parsed.seq)) return;
      if (parsed.seq > this.caughtUp.max) this.caughtUp = null;
    }
    this.dispatchStored({ seq: parsed.seq, offset, message, echo });
  }

  /** Delivers a stored broadcast from another node to this node's sockets, with its offset. */
  private dispatchStored(stored: Stored): void {
    const packet = stored.message.data.packet;
    if (!isEventPacket(packet)) return;
    this.noteDispatched(stored);
    Adapter.prototype.broadcast.call(this, { ...packet, data: [...packet.data, stored.offset] }, decodeOptions(stored.message.data.opts));
  }

  private noteDispatched(stored: Stored): void {
    const parsed = parseOffset(stored.offset)!;
    if (!this.latest || this.latest.epoch !== parsed.epoch || this.latest.seq < parsed.seq)
      this.latest = { seq: parsed.seq, epoch: parsed.epoch, offset: stored.offset };
    for (const recorded of this.recorders) recorded.push(stored);
  }

  /**
   * After the subscriber reconnected: hold incoming broadcasts, make sure the subscriptions are
   * back, read from the streams of this node's rooms what other nodes stored after the last event
   * this node received (the channel delivers in id order, so nothing older is missing), deliver
   * it, then let the held ones through without those already read.
   */
  async catchUp(): Promise<void> {
    if (this.held) return;
    this.held = [];
    try {
      await this.cluster.resubscribe([this.channel, this.responseChannel, ...[...this.subscribed.keys()].map((r) => this.roomChannel(r))]);
      const read = await this.readUntilDone([null, ...this.rooms.keys()]);
      if (read) {
        const dropped = this.readingBeforeDrop;
        this.readingBeforeDrop = null;
        if (dropped !== null && dropped !== read.epoch) this.datasetLost();
        const ids = new Set<number>();
        for (const stored of read.entries) {
          ids.add(stored.seq);
          // What this node published was delivered here already, unless it waited for its echo.
          if (stored.message.uid !== this.uid || stored.echo) this.dispatchStored(stored);
        }
        // Gaps announced while this node was not listening: its sockets of those rooms go too.
        for (const gap of read.gaps) {
          ids.add(gap.seq);
          if (gap.message.uid !== this.uid) this.onMessage(gap.message);
        }
        let max = 0;
        for (const id of ids) if (id > max) max = id;
        this.caughtUp = { epoch: read.epoch, max, ids };
        this.markReceived(max, read.epoch);
      }
    } catch (err) {
      this.cluster.log.warn({ err: (err as Error).message, namespace: this.nsp.name }, 'realtime catch-up after a Redis reconnect failed');
    } finally {
      const held = this.held ?? [];
      this.held = null;
      for (const payload of held) this.onPayload(payload);
    }
  }

  /** The subscriber dropped: what it was reading is what the catch-up compares with (the first drop counts until then). */
  lostSight(): void {
    this.readingBeforeDrop ??= this.received?.epoch ?? null;
  }

  /**
   * Redis lost the namespace's clock and streams while this node was not listening (restarted
   * empty, flushed, or the key evicted): what other nodes stored after the last event it received
   * is gone, and nothing says whether any of it was for its sockets. So it treats it as a gap
   * (CONTRACT §14, §18): every socket of the namespace here is disconnected and its client
   * re-syncs, rather than stay silently short. Offsets of the old dataset are refused from now on
   * (`restoreSession` compares epochs), and `recovery:ready` stops handing them out.
   */
  private datasetLost(): void {
    this.latest = null;
    this.cluster.log.warn({ namespace: this.nsp.name }, 'realtime Redis lost its recovery data: sockets disconnected so that their clients re-sync');
    Adapter.prototype.disconnectSockets.call(this, { rooms: new Set<Room>(), except: new Set<Room>() }, true);
  }

  /** Reads for a catch-up, trying again while the publishing connection is not back yet (the subscriber may be first). */
  private async readUntilDone(rooms: (Room | null)[]): Promise<Awaited<ReturnType<RoomsAdapter['readStreams']>> | null> {
    for (;;) {
      if (this.cluster.closed) return null;
      try {
        return await this.readStreams(rooms, this.received);
      } catch (err) {
        if (this.cluster.sub.status !== 'ready') throw err; // dropped again: the next reconnect catches up
        await new Promise((r) => setTimeout(r, CATCH_UP_RETRY_MS));
      }
    }
  }

  /** Where a catch-up starts: the last stored broadcast received from the channel (or the counter when this node began). */
  private markReceived(seq: number, epoch: string): void {
    if (!this.received || this.received.epoch !== epoch || this.received.seq < seq) this.received = { seq, epoch };
  }

  /**
   * The stored broadcasts of `rooms` (null: the namespace-wide stream) after `from`, merged in id
   * order, one each, with the namespace's counter and epoch; all of the current epoch's when
   * `from` is of another one. `trimmed` when entries after `from` were cut away.
   */
  private async readStreams(
    rooms: Iterable<Room | null>,
    from: { seq: number; epoch: string } | null,
  ): Promise<{ seq: number; epoch: string; trimmed: boolean; entries: Stored[]; gaps: { seq: number; message: Gap }[] }> {
    const keys = [this.clockKey(), ...[...rooms].map((r) => this.streamKey(r))];
    let reply = await this.cluster.pub.roomsRead(keys.length, ...keys, from ? `${from.seq}-0` : '0-0');
    if (from && from.seq > 0 && String(reply[1]) !== from.epoch) reply = await this.cluster.pub.roomsRead(keys.length, ...keys, '0-0');
    const epoch = String(reply[1]);
    const byId = new Map<number, Stored>();
    const gaps = new Map<number, { seq: number; message: Gap }>();
    for (let i = 3; i + 1 < reply.length; i += 2) {
      const id = Number(String(reply[i]).split('-')[0]);
      if (byId.has(id)) continue;
      try {
        const raw = String(reply[i + 1]);
        const message: ClusterMessage = JSON.parse(raw.slice(1));
        if (message.type === MessageType.BROADCAST) byId.set(id, { seq: id, offset: `${id}-0.${epoch}`, message, echo: raw[0] === 'e' });
        else if (message.type === MessageType.DISCONNECT_SOCKETS) gaps.set(id, { seq: id, message });
      } catch {
        // not a broadcast of ours
      }
    }
    const inOrder = <T extends { seq: number }>(values: Iterable<T>) => [...values].sort((x, y) => x.seq - y.seq);
    return { seq: Number(reply[0]), epoch, trimmed: Number(reply[2]) === 1, entries: inOrder(byId.values()), gaps: inOrder(gaps.values()) };
  }

  // ---- recovery ----

  /** The newest offset for a new socket (`recovery:ready`): this node's latest, or Redis's counter. */
  async latestOffset(): Promise<string | undefined> {
    const known = () => this.latest?.offset;
    if (known()) return known();
    // The first socket of a fresh Redis dataset names its epoch (the publish script would too).
    const [seq, epoch] = await this.clock().catch(() => [null, null]);
    // Anything dispatched here meanwhile is newer than what the counter said.
    return known() ?? (epoch ? `${Number(seq ?? 0)}-0.${epoch}` : undefined);
  }

  /**
   * The persisted session, taken. A client can be back (on another node) before the node it left
   * has written its session (a SIGTERM hand-over closes every transport at once, and the writes
   * queue behind each other on a loaded machine), so a missing session is looked for again for a
   * short while before the restore gives up.
   */
  private async takeSession(pid: string): Promise<string | null> {
    const deadline = Date.now() + SESSION_WAIT_MS;
    for (;;) {
      const raw = await this.cluster.pub.getdel(`${this.keyPrefix}session:${pid}`);
      if (raw || Date.now() >= deadline) return raw;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  override persistSession(session: Parameters<Adapter['persistSession']>[0]): void {
    const key = `${this.keyPrefix}session:${session.pid}`;
    this.cluster.pub.set(key, JSON.stringify(session), 'PX', RECOVERY_WINDOW_MS).catch(() => undefined);
  }

  override async restoreSession(pid: string, offset: string): Promise<Session> {
    const from = parseOffset(offset);
    if (!from) return Promise.reject(new Error('invalid offset'));
    const raw = await this.takeSession(pid);
    if (!raw) return Promise.reject(new Error('session not found'));
    const session: Session = { ...JSON.parse(raw), missedPackets: [] };
    const rooms = session.rooms.filter((room) => room !== session.sid);
    const recorded: Stored[] = [];
    this.recorders.add(recorded);
    try {
      // Receive the rooms' live events before reading what was stored: nothing falls in between.
      await this.pin(rooms);
      setTimeout(() => this.unpin(rooms), PIN_RELEASE_MS).unref();
      const read = await this.readStreams([null, ...session.rooms], from);
      if (read.trimmed || read.epoch !== from.epoch || from.seq > read.seq) return Promise.reject(new Error('offset no longer available'));
      // Events of its rooms were dropped after its offset (an outbox overflow): no exact recovery.
      if (read.gaps.some((gap) => reaches(session.rooms, gap.message.data.opts))) return Promise.reject(new Error('events missing after this offset'));
      const missed = read.entries.filter((e) => reaches(session.rooms, e.message.data.opts));
      const later = recorded.filter((e) => e.seq > read.seq && reaches(session.rooms, e.message.data.opts)).sort((a, b) => a.seq - b.seq);
      const seen = new Set<number>();
      for (const stored of [...missed, ...later]) {
        if (seen.has(stored.seq)) continue;
        seen.add(stored.seq);
        const packet = stored.message.data.packet;
        if (isEventPacket(packet)) session.missedPackets.push([...packet.data, stored.offset]);
      }
      return session;
    } finally {
      this.recorders.delete(recorded);
    }
  }

  override close(): void {
    this.cluster.unregister(this);
    this.cluster.unsubscribe(this.channel);
    this.cluster.unsubscribe(this.responseChannel);
    for (const room of this.subscribed.keys()) this.cluster.unsubscribe(this.roomChannel(room));
    this.subscribed.clear();
  }
}

function isEventPacket(packet: unknown): packet is EventPacket {
  return typeof packet === 'object' && packet !== null && Array.isArray(Reflect.get(packet, 'data'));
}

/** The adapter factory for `new Server({ adapter })` (called with `new`, so a plain function). */
export function createRoomsAdapter(cluster: RoomsCluster): (nsp: Namespace) => RoomsAdapter {
  return function (nsp: Namespace) {
    return new RoomsAdapter(nsp, cluster);
  };
}
