// Blocks (CONTRACT §21): a user blocks another; from then on neither can follow, comment on or
// answer the other, message a room they share or be told of the other's doings, and the blocker
// sees nothing of the blocked user's anywhere. The blocked user is never told: nothing in their
// answers changes except their own attempts, refused.
//
// Who blocks whom is read two ways: writes that must be refused ask the database (`eitherWay`,
// one primary-key probe, exact); listings and live events, read far more often, ask
// `relationsOf`, kept per node in the read model's `blocks` cache and dropped on every node by the
// `block.changed` event before the block's request answers (docs/moderation.md, "Blocks").
import type { AppContext } from '../context.js';
import type { Caller } from '../auth/index.js';
import type { UserRepository } from '../auth/index.js';
import type { Queryable } from '../db/client.js';
import type { ReadCache } from '../read-model/index.js';
import { decodeCursor, pageOf, type PageQuery } from '../shared/cursor.js';
import { avatarUrl, displayName } from '../shared/person.js';
import { badRequest, conflict, forbidden, isForeignKeyViolation, notFound } from '../shared/errors.js';
import type { BlockRelations } from '../read-model/index.js';
import type { BlockRepository } from './block-repository.js';

/** The follows a block ends, both ways, in the block's transaction (src/follows/ keeps them). */
export interface FollowsToEnd {
  in(tx: Queryable): { delete(followerId: string, followingId: string): Promise<boolean> };
}

/** How many users one user may block (each block is checked on every listing and event for them). */
export const MAX_BLOCKS_PER_USER = 1_000;

export interface BlockRecord {
  user_id: string;
  blocked_at: string;
}

export interface BlockedUserView {
  user_id: string;
  name: string;
  avatar: string | null;
  blocked_at: string;
}

const userNotFound = () => notFound('user.error.not_found', 'No user with this id', { field: 'userId', constraint: 'existing user' });
const NONE: BlockRelations = { blocked: [], blockedBy: [] };

export class BlockService {
  constructor(
    private readonly app: AppContext,
    private readonly blocks: BlockRepository,
    private readonly follows: FollowsToEnd,
    private readonly users: UserRepository,
    private readonly cache: ReadCache<string, BlockRelations>,
  ) {}

  /**
   * The caller blocks `userId`: 201 the first time (`created: true`), 200 with the same record
   * after. Follows between the two go in the same transaction.
   */
  async block(caller: Caller, userId: string): Promise<{ record: BlockRecord; created: boolean }> {
    const blockerId = caller.userId;
    if (blockerId === userId) {
      throw badRequest('blocks.error.self_block', 'You cannot block yourself', { field: 'userId', constraint: 'another user' });
    }
    if (!(await this.users.exists(userId))) throw userNotFound();
    const existing = await this.blocks.find(blockerId, userId);
    if (existing) return { record: toRecord(existing.blocked_id, existing.created_at), created: false };

    let outcome;
    try {
      outcome = await this.app.database.transaction(async (tx) => {
        const blocks = this.blocks.in(tx);
        await blocks.lockBlocker(blockerId);
        const again = await blocks.find(blockerId, userId);
        if (again) return { row: again, created: false, unfollowed: [] as [string, string][] };
        if ((await blocks.countOf(blockerId)) >= MAX_BLOCKS_PER_USER) {
          throw conflict('blocks.error.limit_reached', `You can block at most ${MAX_BLOCKS_PER_USER} users`, {
            field: 'userId',
            constraint: `at most ${MAX_BLOCKS_PER_USER} blocked users`,
          });
        }
        const row = await blocks.insert(blockerId, userId);
        const follows = this.follows.in(tx);
        const unfollowed: [string, string][] = [];
        if (await follows.delete(blockerId, userId)) unfollowed.push([blockerId, userId]);
        if (await follows.delete(userId, blockerId)) unfollowed.push([userId, blockerId]);
        // The insert cannot meet a conflict: the blocker's lock is held and the row was not there.
        return { row: row ?? (await blocks.find(blockerId, userId))!, created: true, unfollowed };
      });
    } catch (err) {
      // The user was deleted between the check and the insert.
      if (isForeignKeyViolation(err)) throw userNotFound();
      throw err;
    }
    if (outcome.created) {
      await this.app.events.publishAndWait('block.changed', { blockerId, blockedId: userId, blocked: true });
      for (const [follower, following] of outcome.unfollowed) {
        await this.app.events.publishAndWait('follow.deleted', { follower_id: follower, following_id: following });
      }
    }
    return { record: toRecord(outcome.row.blocked_id, outcome.row.created_at), created: outcome.created };
  }

  /** The caller lifts their block of `userId`; lifting a block that is not there is not an error. */
  async unblock(caller: Caller, userId: string): Promise<{ user_id: string; blocked: false }> {
    if (await this.blocks.delete(caller.userId, userId)) {
      await this.app.events.publishAndWait('block.changed', { blockerId: caller.userId, blockedId: userId, blocked: false });
    }
    return { user_id: userId, blocked: false };
  }

  /** The caller's blocked users, most recently blocked first. */
  async list(caller: Caller, query: PageQuery): Promise<{ items: BlockedUserView[]; next_cursor: string | null }> {
    const after = decodeCursor(query.cursor);
    const rows = await this.blocks.page(caller.userId, after, query.limit);
    const { page, nextCursor } = pageOf(
      rows.map((r) => ({ ...r, id: r.blocked_id })),
      query.limit,
    );
    return {
      items: page.map((r) => ({
        user_id: r.blocked_id,
        name: displayName(r),
        avatar: avatarUrl(this.app.config, r.picture),
        blocked_at: r.created_at.toISOString(),
      })),
      next_cursor: nextCursor,
    };
  }

  /** Whether either user blocks the other (from the database: for refusing a write). */
  eitherWay(a: string, b: string): Promise<boolean> {
    if (a === b) return Promise.resolve(false);
    return this.blocks.eitherWay(a, b);
  }

  /** Those of `others` who block `userId` or whom `userId` blocks (from the database). */
  amongEitherWay(userId: string, others: string[]): Promise<Set<string>> {
    return this.blocks.amongEitherWay(
      userId,
      others.filter((id) => id !== userId),
    );
  }

  /**
   * CONTRACT §21: no reaction to the items, comments or messages of someone blocked either way
   * (`others`: whose thing it is). From the database, as every refused write.
   */
  async assertMayReact(userId: string, others: string[]): Promise<void> {
    if ((await this.amongEitherWay(userId, others)).size) throw forbidden('reactions.error.blocked', 'You cannot react here');
  }

  /** Whom the user blocked and who blocked them: from this node's cache, kept true on every node. */
  async relationsOf(userId: string): Promise<BlockRelations> {
    const kept = this.cache.get(userId);
    if (kept) return kept;
    const epoch = this.cache.epoch();
    const relations = await this.blocks.relationsOf(userId);
    this.cache.set(userId, relations.blocked.length || relations.blockedBy.length ? relations : NONE, epoch);
    return relations;
  }

  /** The users whose content, comments and messages `viewerId` does not see (the ones they blocked). */
  async hiddenFrom(viewerId: string | null | undefined): Promise<ReadonlySet<string>> {
    if (!viewerId) return EMPTY;
    const { blocked } = await this.relationsOf(viewerId);
    return blocked.length ? new Set(blocked) : EMPTY;
  }

  /** Everyone blocked by or blocking `userId`: no live event of `userId`'s reaches them, nor theirs `userId`. */
  async eitherWayOf(userId: string): Promise<string[]> {
    const { blocked, blockedBy } = await this.relationsOf(userId);
    return blocked.length || blockedBy.length ? [...new Set([...blocked, ...blockedBy])] : [];
  }
}

const EMPTY: ReadonlySet<string> = new Set();

const toRecord = (userId: string, at: Date): BlockRecord => ({ user_id: userId, blocked_at: at.toISOString() });
