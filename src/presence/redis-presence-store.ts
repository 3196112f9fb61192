// Presence across nodes in Redis (server mode). Keys, under REDIS_PREFIX + "presence:":
//   nodes         sorted set: node id -> deadline (ms); a node's heartbeat pushes it TTL ahead
//   node:<node>   set of the users with a socket on that node
//   user:<user>   set of the nodes holding a socket of that user
// A user is online while one of their nodes is alive (deadline in the future), so a node that
// dies stops counting at its deadline even before anyone cleans up; the next heartbeat of any
// node then claims the dead node (ZREM: exactly one node does) and reports its users that have no
// other live node, so they go offline with `last_seen_at` = the dead node's last heartbeat.
// Every step is one Lua script, so two nodes never both see a user's first or last socket.
// (The scripts touch keys they compute, which a Redis Cluster refuses; one Redis is assumed.)
import type { Redis } from 'ioredis';
import { newId } from '../shared/ids.js';
import type { GoneUser, Heartbeat, PresenceStore } from './presence-store.js';

/** True when one of the nodes in `user_key` other than ARGV[1] is alive at ARGV[3]. */
const OTHER_NODE_ALIVE = `
local function other_alive(nodes_key, user_key, me, now)
  for _, n in ipairs(redis.call('SMEMBERS', user_key)) do
    if n ~= me then
      local deadline = redis.call('ZSCORE', nodes_key, n)
      if deadline and tonumber(deadline) > now then return true end
    end
  end
  return false
end
`;

// KEYS: nodes, node:<me>, user:<user>; ARGV: me, user, now, deadline → 1 when the user came online
const JOIN = `${OTHER_NODE_ALIVE}
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
local before = other_alive(KEYS[1], KEYS[3], ARGV[1], tonumber(ARGV[3]))
redis.call('SADD', KEYS[3], ARGV[1])
if before then return 0 end
return 1`;

// KEYS: nodes, node:<me>, user:<user>; ARGV: me, user, now → 1 when the user went offline
const LEAVE = `${OTHER_NODE_ALIVE}
redis.call('SREM', KEYS[2], ARGV[2])
redis.call('SREM', KEYS[3], ARGV[1])
if other_alive(KEYS[1], KEYS[3], ARGV[1], tonumber(ARGV[3])) then return 0 end
return 1`;

// KEYS: nodes; ARGV: me, now, deadline, key prefix, node-set lifetime (ms), most dead nodes claimed
// → {1 when this node had been given up for dead, user, last heartbeat (ms), user, …}
const HEARTBEAT = `${OTHER_NODE_ALIVE}
local now = tonumber(ARGV[2])
local revived = redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('PEXPIRE', ARGV[4] .. 'node:' .. ARGV[1], ARGV[5])
local result = { revived }
local dead = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[6]))
for i = 1, #dead, 2 do
  local node, deadline = dead[i], dead[i + 1]
  if redis.call('ZREM', KEYS[1], node) == 1 then
    local node_key = ARGV[4] .. 'node:' .. node
    for _, user in ipairs(redis.call('SMEMBERS', node_key)) do
      local user_key = ARGV[4] .. 'user:' .. user
      redis.call('SREM', user_key, node)
      if not other_alive(KEYS[1], user_key, node, now) then
        table.insert(result, user)
        table.insert(result, deadline)
      end
    end
    redis.call('DEL', node_key)
  end
end
return result`;

// KEYS: nodes; ARGV: key prefix, now, user… → {0|1 per user}
const ONLINE = `${OTHER_NODE_ALIVE}
local result = {}
for i = 3, #ARGV do
  if other_alive(KEYS[1], ARGV[1] .. 'user:' .. ARGV[i], '', tonumber(ARGV[2])) then result[#result + 1] = 1 else result[#result + 1] = 0 end
end
return result`;

/** Dead nodes one heartbeat claims at most (the rest wait for the next beat). */
const MAX_DEAD_NODES_PER_BEAT = 5;

export class RedisPresenceStore implements PresenceStore {
  readonly shared = true;
  readonly heartbeatMs: number;
  /** This node's id in Redis: new at each start, so a restarted node never inherits a dead one's sockets. */
  private readonly nodeId = newId();
  private readonly keys: { nodes: string; node: string; prefix: string };

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly ttlMs: number,
  ) {
    this.heartbeatMs = Math.max(500, Math.floor(ttlMs / 3));
    const base = `${prefix}presence:`;
    this.keys = { prefix: base, nodes: `${base}nodes`, node: `${base}node:${this.nodeId}` };
  }

  private userKey(userId: string): string {
    return `${this.keys.prefix}user:${userId}`;
  }

  async nodeJoined(userId: string): Promise<boolean> {
    const now = Date.now();
    const cameOnline = await this.redis.eval(JOIN, 3, this.keys.nodes, this.keys.node, this.userKey(userId), this.nodeId, userId, now, now + this.ttlMs);
    return cameOnline === 1;
  }

  async nodeLeft(userId: string): Promise<boolean> {
    const wentOffline = await this.redis.eval(LEAVE, 3, this.keys.nodes, this.keys.node, this.userKey(userId), this.nodeId, userId, Date.now());
    return wentOffline === 1;
  }

  async onlineOf(userIds: string[]): Promise<Set<string>> {
    if (!userIds.length) return new Set();
    const flags = (await this.redis.eval(ONLINE, 1, this.keys.nodes, this.keys.prefix, Date.now(), ...userIds)) as number[];
    return new Set(userIds.filter((_, i) => flags[i] === 1));
  }

  async heartbeat(localUsers: () => string[]): Promise<Heartbeat> {
    const now = Date.now();
    const result = (await this.redis.eval(
      HEARTBEAT,
      1,
      this.keys.nodes,
      this.nodeId,
      now,
      now + this.ttlMs,
      this.keys.prefix,
      this.ttlMs * 10,
      MAX_DEAD_NODES_PER_BEAT,
    )) as (string | number)[];
    const [revived, ...gone] = result;
    // Another node gave this one up for dead (it missed beats) and took its users offline: the
    // ones still connected here come back.
    const back: string[] = [];
    if (revived === 1) {
      for (const userId of localUsers()) if (await this.nodeJoined(userId)) back.push(userId);
    }
    const users: GoneUser[] = [];
    for (let i = 0; i < gone.length; i += 2) {
      users.push({ userId: String(gone[i]), lastSeen: new Date(Number(gone[i + 1]) - this.ttlMs) });
    }
    return { gone: users, back };
  }

  async close(): Promise<void> {}
}
