// Presence (CONTRACT §18): a user is online while they have a /chat socket on any node. This node
// counts its own sockets per user; the store (memory with one node, Redis across nodes) decides
// when a first or last socket makes the user online or offline everywhere. Each transition is
// published as `presence.changed` (realtime pushes it to the rooms the user shares) and an
// offline one stores last_seen_at. Steps for one user run one after another, so a quick
// disconnect-reconnect is never published out of order.
import type { AppContext } from '../context.js';
import type { BlockService } from '../blocks/index.js';
import { isUuid } from '../shared/ids.js';
import type { PresenceRepository } from './presence-repository.js';
import type { PresenceStore } from './presence-store.js';
import type { PresenceItem } from './presence-view.js';

/** Rooms told about one user's presence at most (as many as a socket joins: src/chat/service.ts). */
const MAX_PRESENCE_ROOMS = 500;

export class PresenceService {
  /** This node's /chat sockets per user. */
  private readonly sockets = new Map<string, number>();
  /** The users the store knows this node holds (trails `sockets` by the steps in flight). */
  private readonly registered = new Set<string>();
  /** The last pending step of each user (connect, disconnect, expiry), so steps never overtake. */
  private readonly pending = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private stopping: Promise<void> | null = null;

  constructor(
    private readonly app: AppContext,
    private readonly repository: PresenceRepository,
    private readonly store: PresenceStore,
    private readonly blocks: BlockService,
  ) {
    // privacy.show_presence changed: the rooms that see the user hear the state as it now reads.
    app.events.handle('presence.visibility_changed', 'presence', ({ userId, shown }) => this.inTurn(userId, () => this.visibilityChanged(userId, shown)));
  }

  /** The chat rooms whose members are told about the user (CONTRACT §19: none while they hide it). */
  private roomsOf(userId: string): Promise<string[]> {
    return this.repository.presenceRoomsOf(userId, MAX_PRESENCE_ROOMS);
  }

  private async visibilityChanged(userId: string, shown: boolean): Promise<void> {
    const online = (await this.store.onlineOf([userId])).has(userId);
    if (shown) {
      if (online) await this.publishOnline(userId);
      else {
        const [lastSeen, roomIds] = await Promise.all([this.repository.lastSeenOf([userId]), this.roomsOf(userId)]);
        this.app.events.publish('presence.changed', { userId, online: false, last_seen_at: lastSeen.get(userId)?.toISOString() ?? null, roomIds });
      }
      return;
    }
    // Hidden: the rooms that saw the user now read them as never seen (their rooms as if shown).
    const roomIds = await this.repository.presenceRoomsOf(userId, MAX_PRESENCE_ROOMS, { evenIfHidden: true });
    this.app.events.publish('presence.changed', { userId, online: false, last_seen_at: null, roomIds });
  }

  /** Starts heartbeating (server mode): keeps this node's users online and notices dead nodes. */
  start(): void {
    if (this.store.heartbeatMs === null || this.timer || this.stopped) return;
    void this.beat();
    this.timer = setInterval(() => void this.beat(), this.store.heartbeatMs);
    this.timer.unref();
  }

  /**
   * Stops counting. With a shared store this node's users expire unless they reconnect to
   * another node (a node handing its sockets over on SIGTERM does not flap their presence); with
   * the memory store (one node) everyone here is offline now, so their last_seen_at is written.
   */
  stop(): Promise<void> {
    this.stopped = true;
    return (this.stopping ??= this.finish());
  }

  private async finish(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all([...this.pending.values()]);
    if (!this.store.shared) {
      const at = new Date();
      for (const userId of this.registered) await this.repository.saveLastSeen(userId, at).catch(() => undefined);
    }
    this.sockets.clear();
    this.registered.clear();
    await this.store.close();
  }

  socketConnected(userId: string): void {
    if (this.stopped) return;
    const count = (this.sockets.get(userId) ?? 0) + 1;
    this.sockets.set(userId, count);
    if (count === 1) this.inTurn(userId, () => this.joined(userId));
  }

  socketDisconnected(userId: string): void {
    if (this.stopped) return;
    const count = (this.sockets.get(userId) ?? 0) - 1;
    if (count > 0) {
      this.sockets.set(userId, count);
      return;
    }
    this.sockets.delete(userId);
    this.inTurn(userId, () => this.left(userId));
  }

  /**
   * GET /presence: every requested id, in order; an id that names no user reads as never seen.
   * Presence is private (CONTRACT §19): a user is shown only to those who share a room with them
   * that they created or sent a message in, while their privacy.show_presence is on; a user on
   * either side of a block with the caller (CONTRACT §21), and everyone else, reads as never
   * seen, as an unknown id does.
   */
  async presenceOf(callerId: string, userIds: string[]): Promise<PresenceItem[]> {
    const ids = [...new Set(userIds)];
    const blocked = new Set(await this.blocks.eitherWayOf(callerId));
    const candidates = ids.filter((id) => isUuid(id) && !blocked.has(id));
    const visible = await this.repository.visibleTo(callerId, candidates);
    const known = candidates.filter((id) => visible.has(id));
    const [online, lastSeen] = await Promise.all([this.store.onlineOf(known), this.repository.lastSeenOf(known)]);
    return ids.map((id) => ({ user_id: id, online: online.has(id), last_seen_at: lastSeen.get(id)?.toISOString() ?? null }));
  }

  private async joined(userId: string): Promise<void> {
    // Gone and back before the store heard of the leaving: nothing changed.
    if (this.registered.has(userId) || !this.sockets.has(userId)) return;
    this.registered.add(userId);
    if (await this.store.nodeJoined(userId)) await this.publishOnline(userId);
  }

  private async left(userId: string): Promise<void> {
    if (this.sockets.has(userId) || !this.registered.has(userId)) return;
    this.registered.delete(userId);
    if (await this.store.nodeLeft(userId)) await this.wentOffline(userId, new Date());
  }

  private async publishOnline(userId: string): Promise<void> {
    const [lastSeen, roomIds] = await Promise.all([this.repository.lastSeenOf([userId]), this.roomsOf(userId)]);
    this.app.events.publish('presence.changed', { userId, online: true, last_seen_at: lastSeen.get(userId)?.toISOString() ?? null, roomIds });
  }

  private async wentOffline(userId: string, at: Date): Promise<void> {
    const [lastSeen, roomIds] = await Promise.all([this.repository.saveLastSeen(userId, at), this.roomsOf(userId)]);
    this.app.events.publish('presence.changed', { userId, online: false, last_seen_at: lastSeen.toISOString(), roomIds });
  }

  private async beat(): Promise<void> {
    try {
      const { gone, back } = await this.store.heartbeat(() => [...this.registered]);
      for (const { userId, lastSeen } of gone) this.inTurn(userId, () => this.wentOffline(userId, lastSeen));
      for (const userId of back) this.inTurn(userId, () => this.publishOnline(userId));
    } catch (err) {
      this.app.log.warn({ err: (err as Error).message }, 'presence heartbeat failed');
    }
  }

  private inTurn(userId: string, step: () => Promise<void>): void {
    const previous = this.pending.get(userId) ?? Promise.resolve();
    const next = previous.then(step).catch((err: unknown) => {
      this.app.log.warn({ err: (err as Error).message, userId }, 'presence update failed');
    });
    this.pending.set(userId, next);
    void next.finally(() => {
      if (this.pending.get(userId) === next) this.pending.delete(userId);
    });
  }
}
