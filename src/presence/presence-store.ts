// Where presence is decided across nodes. Each node counts its own /chat sockets per user (in
// PresenceService) and tells the store only when it holds a user's first socket or lost the
// last one; the store answers whether that made the user online or offline everywhere.
// Embedded mode has one node, so the store is this node's memory (MemoryPresenceStore); with
// Redis it is RedisPresenceStore (redis-presence-store.ts), which also notices dead nodes.

export interface GoneUser {
  userId: string;
  /** The last heartbeat of the node that held the user's sockets. */
  lastSeen: Date;
}

export interface Heartbeat {
  /** Users whose only live node was found dead: offline now. */
  gone: GoneUser[];
  /** Users of this node that had been taken offline while it was thought dead: online again. */
  back: string[];
}

export interface PresenceStore {
  /** This node now holds a socket of the user; true when no other live node did (the user came online). */
  nodeJoined(userId: string): Promise<boolean>;
  /** This node holds no socket of the user any more; true when no other live node does (the user went offline). */
  nodeLeft(userId: string): Promise<boolean>;
  /** Which of the users have a socket on a live node. */
  onlineOf(userIds: string[]): Promise<Set<string>>;
  /**
   * Milliseconds between heartbeats, or null when the store needs none (one node). A heartbeat
   * keeps this node alive and claims the users of nodes that stopped beating.
   */
  readonly heartbeatMs: number | null;
  /** `localUsers` are re-registered when this node had been given up for dead (e.g. a Redis outage). */
  heartbeat(localUsers: () => string[]): Promise<Heartbeat>;
  /** Stops heartbeating (the node's users expire unless they reconnect to another node). */
  close(): Promise<void>;
  /** False when the store lives and dies with this node (its users are offline once it stops). */
  readonly shared: boolean;
}

/** One node: the users with a socket here are the online ones. */
export class MemoryPresenceStore implements PresenceStore {
  private readonly online = new Set<string>();
  readonly heartbeatMs = null;
  readonly shared = false;

  async nodeJoined(userId: string): Promise<boolean> {
    this.online.add(userId);
    return true;
  }

  async nodeLeft(userId: string): Promise<boolean> {
    this.online.delete(userId);
    return true;
  }

  async onlineOf(userIds: string[]): Promise<Set<string>> {
    return new Set(userIds.filter((id) => this.online.has(id)));
  }

  async heartbeat(): Promise<Heartbeat> {
    return { gone: [], back: [] };
  }

  async close(): Promise<void> {}
}
