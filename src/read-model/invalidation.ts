// What can make a cached read stale, as one small message: what a node applies to its own caches
// and tells the other nodes. Domain events are translated into these (read-model.ts), so the
// other nodes hear only what their caches need, never a domain event twice.
export type Invalidation =
  /** A session ended (its user's, for what drops its sockets). */
  | { kind: 'session'; sessionId: string; userId: string }
  /** Something cached of a user changed (name, avatar, role, session timeout): their sessions, profile and items. */
  | { kind: 'user'; userId: string }
  /** A follow was made or undone: both profiles' counts and the follower's feed. */
  | { kind: 'follow'; userIds: [string, string] }
  /** A block was made or lifted between the two users: their block relations (src/blocks/). */
  | { kind: 'blocks'; userIds: [string, string] }
  /** Role permissions changed. */
  | { kind: 'roles' }
  /** An item changed (edit, media, state, counts) or was deleted: its copies and every listing page. */
  | { kind: 'content'; contentId: string }
  /** A new item (its id, for the listing index): the listing pages. */
  | { kind: 'listings'; contentId?: string }
  /** Invalidations may have been missed (the link between nodes was down): forget everything. */
  | { kind: 'everything' };

const uuidText = /^[0-9a-f-]{36}$/i;

/** A message from another node, checked before it touches the caches. */
export function parseInvalidation(value: unknown): Invalidation | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const id = (x: unknown): x is string => typeof x === 'string' && uuidText.test(x);
  switch (v.kind) {
    case 'session':
      return id(v.sessionId) && id(v.userId) ? { kind: 'session', sessionId: v.sessionId, userId: v.userId } : null;
    case 'user':
      return id(v.userId) ? { kind: 'user', userId: v.userId } : null;
    case 'follow':
      return Array.isArray(v.userIds) && v.userIds.length === 2 && id(v.userIds[0]) && id(v.userIds[1])
        ? { kind: 'follow', userIds: [v.userIds[0], v.userIds[1]] }
        : null;
    case 'blocks':
      return Array.isArray(v.userIds) && v.userIds.length === 2 && id(v.userIds[0]) && id(v.userIds[1])
        ? { kind: 'blocks', userIds: [v.userIds[0], v.userIds[1]] }
        : null;
    case 'content':
      return id(v.contentId) ? { kind: 'content', contentId: v.contentId } : null;
    case 'listings':
      if (v.contentId === undefined) return { kind: 'listings' };
      return id(v.contentId) ? { kind: 'listings', contentId: v.contentId } : null;
    case 'roles':
    case 'everything':
      return { kind: v.kind };
    default:
      return null;
  }
}
