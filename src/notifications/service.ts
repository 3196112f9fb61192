// The notification inbox (CONTRACT §17). A notification is written by `notify` inside the
// transaction of the change that causes it, so it exists exactly when the change does. The socket
// push comes after commit: `deliverPending` claims the rows not pushed yet (any node, each row
// once) and publishes `notification.created`, which realtime turns into `notification:new`, and
// queues Web Push for them in the same claim. Callers poke it with `deliverSoon()` once their
// transaction has committed; a sweep (jobs/notification-dispatch.ts) catches what a crash between
// commit and poke left behind, so such a row is pushed late, never twice.
import type { WakeUp } from '../shared/wake-up.js';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/client.js';
import { avatarUrl, displayName } from '../shared/person.js';
import { decodeCursor, pageOf, type PageQuery } from '../shared/cursor.js';
import type { UserRepository } from '../auth/index.js';
import type { SettingsRepository } from '../settings/index.js';
import type { BlockRepository } from '../blocks/index.js';
import { newId } from '../shared/ids.js';
import { ClaimRounds } from '../shared/claim-rounds.js';
import type { PushService } from '../push/index.js';
import type { NotificationRepository, NotificationRow } from './notification-repository.js';
import { mentionedUsernames } from './mentions.js';
import { wantsInApp } from './preferences.js';
import type { NotificationType, NotificationView, NotifyInput } from './types.js';

/** Reactions on one item within this window are one notification (CONTRACT §17). */
const REACTION_GROUP_SECONDS = 3600;
/** Rows per insert statement of notifyMany (8 parameters each, far below PostgreSQL's 65,535). */
const INSERT_BATCH = 500;
/** Rows claimed per round of deliverPending. */
const CLAIM_BATCH = 200;
/** How long the inbox keeps a notification (the retention job deletes older ones). */
export const RETENTION_DAYS = 90;
const PRUNE_BATCH = 5_000;

interface InboxPage {
  notifications: NotificationView[];
  unread_count: number;
  hasMore: boolean;
  nextCursor: string | null;
}

export class NotificationService {
  /** The delivery loop of this node (one run at a time; pokes during it ask for one more pass). */
  private readonly rounds = new ClaimRounds(() => this.deliverBatch(), CLAIM_BATCH);

  constructor(
    private readonly app: AppContext,
    private readonly repository: NotificationRepository,
    private readonly users: UserRepository,
    private readonly settings: SettingsRepository,
    private readonly blocks: BlockRepository,
    private readonly push: PushService,
    /** Poked by deliverSoon(); jobs/notification-delivery.ts runs the round. */
    private readonly wakeUp: Pick<WakeUp, 'poke'>,
  ) {}

  /**
   * Stores a notification for `input.userId` in the caller's transaction `tx`, unless the
   * recipient caused it, turned its type off (settings, content.in_app_notifications), or a block
   * stands between the recipient and the actor, either way (CONTRACT §21). Call
   * `deliverSoon()` after the transaction commits for an immediate push.
   */
  async notify(tx: Queryable, input: NotifyInput): Promise<void> {
    await this.notifyMany(tx, [input]);
  }

  /**
   * `notify` for many recipients in one go (a saved search's matches, say): the settings are read
   * only for types that have a toggle, and the rows go in by INSERT_BATCH per statement.
   */
  async notifyMany(tx: Queryable, inputs: NotifyInput[]): Promise<void> {
    const rows = [];
    const settings = this.settings.in(tx);
    const blocked = await this.blockedPairs(tx, inputs);
    for (const input of inputs) {
      if (input.userId === input.actorId) continue;
      if (input.actorId && blocked.has(`${input.actorId}:${input.userId}`)) continue;
      if (!(await wantsInApp(settings, input.userId, input.type))) continue;
      rows.push({
        id: newId(),
        userId: input.userId,
        type: input.type,
        actorId: input.actorId,
        subjectType: input.subject.type,
        subjectId: input.subject.id,
        data: input.data ?? {},
        dedupeKey: input.dedupeKey ?? null,
      });
    }
    const repository = this.repository.in(tx);
    for (let i = 0; i < rows.length; i += INSERT_BATCH) await repository.insertMany(rows.slice(i, i + INSERT_BATCH));
  }

  /** A like on `contentId` by `actorId`: joins the item's open reaction group of the hour, or opens one. */
  async notifyReaction(tx: Queryable, input: { userId: string; actorId: string; contentId: string }): Promise<void> {
    if (input.userId === input.actorId) return;
    if (await this.blocks.in(tx).eitherWay(input.userId, input.actorId)) return;
    if (!(await wantsInApp(this.settings.in(tx), input.userId, 'reaction'))) return;
    await this.repository.in(tx).addToReactionGroup({
      id: newId(),
      userId: input.userId,
      type: 'reaction',
      actorId: input.actorId,
      subjectType: 'content',
      subjectId: input.contentId,
      data: { contentId: input.contentId },
      dedupeKey: null,
      groupKey: `reaction:${input.contentId}`,
      windowSeconds: REACTION_GROUP_SECONDS,
    });
  }

  /**
   * `mention` for each `@username` in `text` (at most MAX_MENTIONS names), except the author and
   * the users in `skip` (already told by a comment or reply notification of the same comment).
   */
  async notifyMentions(tx: Queryable, input: { text: string; actorId: string; commentId: string; contentId: string; skip: string[] }): Promise<void> {
    const names = mentionedUsernames(input.text);
    if (!names.length) return;
    const ids = await this.users.in(tx).idsByUsernames(names);
    for (const userId of ids) {
      if (input.skip.includes(userId)) continue;
      await this.notify(tx, {
        userId,
        type: 'mention',
        actorId: input.actorId,
        subject: { type: 'comment', id: input.commentId },
        data: { contentId: input.contentId, commentId: input.commentId },
        dedupeKey: `mention:${input.commentId}`,
      });
    }
  }

  /** `actor:recipient` for each input whose actor and recipient are blocked either way (one query per actor). */
  private async blockedPairs(tx: Queryable, inputs: NotifyInput[]): Promise<Set<string>> {
    const byActor = new Map<string, string[]>();
    for (const input of inputs) {
      if (!input.actorId || input.actorId === input.userId) continue;
      const list = byActor.get(input.actorId) ?? [];
      list.push(input.userId);
      byActor.set(input.actorId, list);
    }
    const pairs = new Set<string>();
    const blocks = this.blocks.in(tx);
    for (const [actorId, userIds] of byActor) {
      for (const userId of await blocks.amongEitherWay(actorId, userIds)) pairs.add(`${actorId}:${userId}`);
    }
    return pairs;
  }

  /** Whether the user's settings let notifications of `type` through (the legacy pushes ask too). */
  wants(userId: string, type: NotificationType): Promise<boolean> {
    return wantsInApp(this.settings, userId, type);
  }

  async list(userId: string, query: PageQuery): Promise<InboxPage> {
    const after = decodeCursor(query.cursor);
    const [rows, unread] = await Promise.all([this.repository.page(userId, after, query.limit), this.repository.unreadCount(userId)]);
    const { page, hasMore, nextCursor } = pageOf(rows, query.limit);
    return { notifications: page.map((r) => this.toView(r)), unread_count: unread, hasMore, nextCursor };
  }

  /** Marks `ids` (the caller's own; others' ids change nothing) or all as read; answers the unread count. */
  async markRead(userId: string, ids: string[] | undefined): Promise<{ unread_count: number }> {
    await this.repository.markRead(userId, ids ?? null);
    return { unread_count: await this.repository.unreadCount(userId) };
  }

  /** Deletes notifications older than RETENTION_DAYS, and finished pushes; answers how many notifications went. */
  async prune(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.repository.deleteOlderThan(RETENTION_DAYS, PRUNE_BATCH);
      total += deleted;
      if (deleted < PRUNE_BATCH) break;
    }
    await this.push.pruneFinished();
    return total;
  }

  /** Pokes delivery without waiting (after a commit that may have written notifications). */
  deliverSoon(): void {
    this.wakeUp.poke();
  }

  /**
   * Claims every notification not pushed yet, publishes each as `notification.created` and
   * queues its Web Push, in rounds of CLAIM_BATCH. Overlapping calls on one node share one run
   * (plus one more round for the pokes that came during it). Answers how many were claimed.
   */
  deliverPending(): Promise<number> {
    return this.rounds.run();
  }

  private async deliverBatch(): Promise<number> {
    const claimed = await this.app.database.transaction(async (tx) => {
      const rows = await this.repository.in(tx).claimUnpushed(CLAIM_BATCH);
      await this.push.enqueue(
        tx,
        rows.map((r) => r.id),
      );
      return rows;
    });
    for (const row of claimed) this.app.events.publish('notification.created', { userId: row.user_id, notification: this.toView(row) });
    if (claimed.length) this.push.deliverSoon();
    return claimed.length;
  }

  /** The node is shutting down: starts no more rounds and waits for the one in progress (before the database closes). */
  stop(): Promise<void> {
    return this.rounds.stop();
  }

  toView(row: NotificationRow): NotificationView {
    return {
      id: row.id,
      type: row.type,
      actor:
        row.actor_id && row.actor_username !== null
          ? {
              userId: row.actor_id,
              name: displayName({ username: row.actor_username, given_name: row.actor_given_name ?? '', family_name: row.actor_family_name ?? '' }),
              avatar: avatarUrl(this.app.config, row.actor_picture),
            }
          : null,
      subject: { type: row.subject_type, id: row.subject_id },
      data: row.data,
      read_at: row.read_at ? row.read_at.toISOString() : null,
      created_at: row.created_at.toISOString(),
    };
  }
}
