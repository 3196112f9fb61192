// The moderators' side of reports (CONTRACT §21): the queue, one entry per reported target, and
// the decisions on a target with every effect they have:
// - dismiss: the reports are closed; a held item is listed again;
// - warn: as dismiss, and the author is told;
// - remove: a content item answers 404 to all but its owner (who sees `removed` and the note),
//   its media is withdrawn; a comment or message reads as deleted;
// - suspend_user: the author (or the reported user) is suspended: every session ends on every
//   node at once (Revocations: sockets dropped too), login answers 403, their items are held
//   until `restore`.
// The author gets a `moderation.action` notification (no actor: neither the moderator nor any
// reporter is named), and each decision is appended to the audit log in its own transaction.
// Every decision and restore is a staff action on the author (or user): refused when they hold a
// permission the moderator lacks, or (but for dismiss and restore) are the last active
// administrator (StaffReach, src/authorization/staff-reach.ts).
import type { AppContext } from '../context.js';
import type { StaffReach } from '../authorization/index.js';
import { requirePermission, type Caller } from '../auth/index.js';
import type { Revocations } from '../auth/index.js';
import type { SessionRepository } from '../auth/index.js';
import type { UserRepository } from '../auth/index.js';
import type { ChatRepository } from '../chat/index.js';
import type { CommentRepository } from '../comments/index.js';
import type { ContentRepository } from '../content/index.js';
import type { Queryable } from '../db/client.js';
import type { MediaRemoval } from '../media/index.js';
import type { NotificationService } from '../notifications/index.js';
import { badRequest, notFound } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { mediaUrl } from '../shared/media-url.js';
import type { AuditLog } from '../audit/index.js';
import type { ModerationAction, ReportRepository, ReportRow, TargetType } from './reports-repository.js';
import type { QueueItem, QueuePage, QueueQuery, ResolveInput, ResolveView, TargetSnapshot } from './report-schemas.js';

export const MODERATE_PERMISSION = 'moderate:content';

const targetNotFound = () =>
  notFound('moderation.error.target_not_found', 'Target not found', { field: 'target_id', constraint: 'must name an existing target' });
const userNotFound = () => notFound('moderation.error.user_not_found', 'User not found', { field: 'userId', constraint: 'must name an existing user' });
const invalidCursor = () =>
  badRequest('moderation.error.invalid_cursor', 'The cursor is not one this endpoint gave', { field: 'cursor', constraint: 'next_cursor of a previous page' });

interface QueueCursor {
  key: string;
  targetType: string;
  targetId: string;
}

const encodeCursor = (c: QueueCursor): string => Buffer.from(JSON.stringify([c.key, c.targetType, c.targetId])).toString('base64url');

function decodeCursor(cursor: string | undefined): QueueCursor | null {
  if (cursor === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(value) || value.length !== 3) throw invalidCursor();
  const [key, targetType, targetId] = value as unknown[];
  const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
  if (typeof key !== 'string' || !timestamp.test(key) || Number.isNaN(Date.parse(key))) throw invalidCursor();
  if (typeof targetType !== 'string' || !['content', 'comment', 'message', 'user'].includes(targetType)) throw invalidCursor();
  if (typeof targetId !== 'string' || !isUuid(targetId)) throw invalidCursor();
  return { key, targetType, targetId };
}

/** A target as a decision needs it: its author, and for content whether it is held for review. */
interface DecidedTarget {
  ownerId: string;
}

/** No user: the messages a moderator reads are looked up without anyone's membership. */
const NOBODY = '00000000-0000-0000-0000-000000000000';

const fullName = (u: { given_name: string; family_name: string }) => `${u.given_name} ${u.family_name}`.trim();

export class ModerationService {
  constructor(
    private readonly app: AppContext,
    private readonly reports: ReportRepository,
    private readonly users: UserRepository,
    private readonly sessions: SessionRepository,
    private readonly contents: ContentRepository,
    private readonly comments: CommentRepository,
    private readonly chat: ChatRepository,
    private readonly notifications: NotificationService,
    private readonly revocations: Revocations,
    private readonly mediaRemoval: MediaRemoval,
    private readonly audit: AuditLog,
    private readonly staff: StaffReach,
  ) {}

  /** GET /moderation/reports: reported targets, oldest first reported first, with their reports. */
  async queue(caller: Caller, query: QueueQuery): Promise<QueuePage> {
    requirePermission(caller, MODERATE_PERMISSION);
    const after = decodeCursor(query.cursor);
    const rows = await this.reports.queuePage(query.status, query.target_type ?? null, after, query.per_page);
    const page = rows.slice(0, query.per_page);
    const reports = await this.reports.reportsOf(query.status, page);
    const byTarget = new Map<string, ReportRow[]>();
    for (const r of reports) {
      const key = `${r.target_type}:${r.target_id}`;
      const list = byTarget.get(key) ?? [];
      list.push(r);
      byTarget.set(key, list);
    }
    const items: QueueItem[] = [];
    for (const t of page) {
      const list = byTarget.get(`${t.target_type}:${t.target_id}`) ?? [];
      const reasons: Record<string, number> = {};
      for (const r of list) reasons[r.reason] = (reasons[r.reason] ?? 0) + 1;
      items.push({
        target_type: t.target_type,
        target_id: t.target_id,
        target: await this.snapshot(t.target_type, t.target_id),
        report_count: list.length,
        reasons,
        first_reported_at: t.first_reported_at.toISOString(),
        reports: list.map((r) => ({ id: r.id, reporter_id: r.reporter_id, reason: r.reason, note: r.note, created_at: r.created_at.toISOString() })),
      });
    }
    const last = page[page.length - 1];
    const next = rows.length > query.per_page && last ? encodeCursor({ key: last.first_key, targetType: last.target_type, targetId: last.target_id }) : null;
    return { items, next_cursor: next };
  }

  /** POST /moderation/targets/{type}/{id}/resolve. */
  async resolve(caller: Caller, targetType: TargetType, targetId: string, input: ResolveInput): Promise<ResolveView> {
    requirePermission(caller, MODERATE_PERMISSION);
    const { action } = input;
    const note = input.note ? input.note : null;
    if (action === 'remove' && targetType === 'user') {
      throw badRequest('moderation.error.invalid_action', 'A user cannot be removed; suspend them instead', {
        field: 'action',
        constraint: 'remove applies to content, comments and messages',
      });
    }
    const target = await this.findTarget(targetType, targetId);
    const at = new Date();
    const change = async (tx: Queryable) => {
      // Dismissing takes nothing from the author, so even the last administrator's reports can be closed.
      await this.staff.check(tx, caller, target.ownerId, action === 'dismiss' ? 'gives' : 'takes');
      const resolved = await this.reports.in(tx).resolveOpen(targetType, targetId, action, at);
      const contents = this.contents.in(tx);
      let roomId: string | null = null;
      switch (action) {
        case 'dismiss':
        case 'warn':
        case 'suspend_user':
          // The review is over: a held item is listed again (unless its author's suspension holds it).
          if (targetType === 'content') await contents.setModeration(targetId, null, null);
          break;
        case 'remove':
          if (targetType === 'content') await contents.setModeration(targetId, 'removed', note);
          if (targetType === 'comment') await this.comments.in(tx).markRemoved(targetId, at);
          if (targetType === 'message') {
            const message = await this.chat.in(tx).findMessage(targetId, caller.userId);
            if (message && (await this.chat.in(tx).markDeleted(targetId, at))) roomId = message.room_id;
          }
          break;
      }
      let ended: { userId: string; sessionId: string }[] = [];
      if (action === 'suspend_user') {
        await this.users.in(tx).setSuspended(target.ownerId, at);
        await contents.setSuspensionHold(target.ownerId, true);
        ended = (await this.sessions.in(tx).revokeAllExcept(target.ownerId, null)).map((sessionId) => ({ userId: target.ownerId, sessionId }));
      }
      if (action !== 'dismiss') {
        await this.notifications.notify(tx, {
          userId: target.ownerId,
          type: 'moderation.action',
          actorId: null,
          subject: { type: targetType, id: targetId },
          data: { action, target_type: targetType, target_id: targetId, note },
        });
      }
      await this.audit.append({ actorId: caller.userId, action: `report.${action}`, targetType, targetId, note: note ?? undefined }, tx);
      return { resolved, roomId, ended };
    };

    const outcome = await this.staff.audited(caller, { action: `report.${action}`, targetType, targetId }, () => this.commit(action, target.ownerId, change));
    this.notifications.deliverSoon();

    if (targetType === 'content' && action !== 'suspend_user') {
      // Every node drops its copies and listing pages before the moderator hears back.
      await this.app.events.publishAndWait('content.changed', { contentId: targetId, uploaderId: target.ownerId });
    }
    if (targetType === 'content' && action === 'remove') {
      try {
        await this.mediaRemoval.withdraw(targetId);
      } catch (err) {
        // The removal is committed; the media-removal job retries the withdrawal.
        this.app.log.error({ err, contentId: targetId }, 'could not withdraw the media of removed content');
      }
    }
    if (outcome.roomId) this.app.events.publish('chat.message.deleted', { roomId: outcome.roomId, _id: targetId, senderId: target.ownerId });
    return { target_type: targetType, target_id: targetId, action, resolved_reports: outcome.resolved };
  }

  /** Runs a decision's change in its transaction; a suspension goes the way revocations go. */
  private async commit<T extends { ended: { userId: string; sessionId: string }[] }>(
    action: ModerationAction,
    ownerId: string,
    change: (tx: Queryable) => Promise<T>,
  ): Promise<T> {
    if (action !== 'suspend_user') return this.app.database.transaction(change);
    // The suspension, its sessions' end and the hold of the user's items commit together with
    // the notice to every node's caches, and every node has applied it before the answer.
    const box: { outcome?: T } = {};
    await this.revocations.revoke(async (tx) => {
      box.outcome = await change(tx);
      return { sessions: box.outcome.ended, users: [ownerId] };
    });
    if (!box.outcome) throw new Error('a suspension committed without its outcome');
    return box.outcome;
  }

  /** POST /moderation/users/{userId}/restore: lifts a suspension and releases what it held. */
  async restore(caller: Caller, userId: string): Promise<{ user_id: string; status: 'active' }> {
    requirePermission(caller, MODERATE_PERMISSION);
    if (!isUuid(userId) || !(await this.users.findStanding(userId))) throw userNotFound();
    await this.staff.audited(caller, { action: 'user.restore', targetType: 'user', targetId: userId }, () =>
      this.revocations.revoke(async (tx) => {
        await this.staff.check(tx, caller, userId, 'gives');
        await this.users.in(tx).setSuspended(userId, null);
        await this.contents.in(tx).setSuspensionHold(userId, false);
        await this.audit.append({ actorId: caller.userId, action: 'user.restore', targetType: 'user', targetId: userId }, tx);
        return { sessions: [], users: [userId] };
      }),
    );
    return { user_id: userId, status: 'active' };
  }

  /** The target's author, or 404 when it does not exist (a moderator may act on anything that does). */
  private async findTarget(type: TargetType, id: string): Promise<DecidedTarget> {
    if (!isUuid(id)) throw targetNotFound();
    switch (type) {
      case 'content': {
        const row = await this.contents.findMedia(id);
        if (!row) throw targetNotFound();
        return { ownerId: row.uploader_id };
      }
      case 'comment': {
        const head = await this.comments.findHead(id);
        if (!head) throw targetNotFound();
        return { ownerId: head.author_id };
      }
      case 'message': {
        const message = await this.chat.findMessage(id, NOBODY);
        if (!message) throw targetNotFound();
        return { ownerId: message.sender_id };
      }
      case 'user': {
        const user = await this.users.findStanding(id);
        if (!user) throw targetNotFound();
        return { ownerId: user.id };
      }
    }
  }

  /** What the moderator sees of a target; null when it is gone. */
  private async snapshot(type: TargetType, id: string): Promise<TargetSnapshot> {
    switch (type) {
      case 'content': {
        const row = await this.contents.findLive(id);
        if (!row) return null;
        const block = row.content_info.find((b) => b.lang === 'en') ?? row.content_info[0];
        return {
          author_id: row.uploader_id,
          title: block?.project_name ?? null,
          thumbnail: row.video.thumbnail_path ? mediaUrl(this.app.config, row.video.thumbnail_path) : null,
          status: row.status,
        };
      }
      case 'comment': {
        const row = await this.comments.findById(id);
        if (!row) return null;
        return { author_id: row.author_id, text: row.removed_at ? null : row.msg, status: row.removed_at ? 'removed' : 'live' };
      }
      case 'message': {
        const row = await this.chat.findMessage(id, NOBODY);
        if (!row) return null;
        return { author_id: row.sender_id, text: row.deleted_at ? null : row.msg, status: row.deleted_at ? 'deleted' : 'live' };
      }
      case 'user': {
        const user = await this.users.findStanding(id);
        if (!user) return null;
        return { author_id: user.id, name: fullName(user) || user.username, status: user.suspended ? 'suspended' : 'active' };
      }
    }
  }
}
