// Reports (CONTRACT §21): a user reports a content item, a comment, a message or a user they can
// see. A second open report of the same target by the same user is refused, as is a 21st report
// within 24 hours (a quota on people, not on load: RATE_LIMIT_SCALE does not change it). A content
// item reported by REPORT_HOLD_THRESHOLD distinct reporters with verified phones is held: out of
// every listing, 404 to everyone but its owner (who sees `under_review`), until a moderator decides.
// Nothing here tells the author or other reporters who reported.
import type { AppContext } from '../context.js';
import type { Caller } from '../auth/index.js';
import type { UserRepository } from '../auth/index.js';
import type { ChatRepository } from '../chat/index.js';
import type { CommentRepository } from '../comments/index.js';
import type { ContentRepository } from '../content/index.js';
import { mayViewContent } from '../content/index.js';
import { badRequest, conflict, isUniqueViolation, notFound, tooManyRequests } from '../shared/errors.js';
import { isUuid, newId } from '../shared/ids.js';
import type { ReportRepository, ReportRow, TargetType } from './reports-repository.js';
import type { ReportInput, ReportView } from './report-schemas.js';

/** Reports one user may make in 24 hours (CONTRACT §21); not multiplied by RATE_LIMIT_SCALE. */
export const REPORTS_PER_DAY = 20;
const DAY_MS = 24 * 60 * 60 * 1000;

export const targetNotFound = () =>
  notFound('reports.error.target_not_found', 'Target not found', { field: 'target_id', constraint: 'must name something the caller can see' });
const alreadyReported = () =>
  conflict('reports.error.already_reported', 'You have already reported this and it is still open', {
    field: 'target_id',
    constraint: 'one open report per target',
  });

export const reportView = (row: ReportRow): ReportView => ({
  id: row.id,
  target_type: row.target_type,
  target_id: row.target_id,
  reason: row.reason,
  status: row.status,
  created_at: row.created_at.toISOString(),
});

export class ReportService {
  constructor(
    private readonly app: AppContext,
    private readonly reports: ReportRepository,
    private readonly users: UserRepository,
    private readonly contents: ContentRepository,
    private readonly comments: CommentRepository,
    private readonly chat: ChatRepository,
  ) {}

  async report(caller: Caller, input: ReportInput): Promise<ReportView> {
    const ownerId = await this.visibleTargetOwner(caller, input.target_type, input.target_id);
    if (ownerId === caller.userId) {
      throw badRequest('reports.error.own_target', 'You cannot report yourself or what you wrote', {
        field: 'target_id',
        constraint: 'must not be the caller or theirs',
      });
    }
    const reporter = await this.users.findStanding(caller.userId);
    const threshold = this.app.config.REPORT_HOLD_THRESHOLD;
    let held = false;
    let row: ReportRow;
    try {
      row = await this.app.database.transaction(async (tx) => {
        const reports = this.reports.in(tx);
        await reports.lockReporter(caller.userId);
        if (await reports.hasOpen(caller.userId, input.target_type, input.target_id)) throw alreadyReported();
        if ((await reports.countSince(caller.userId, new Date(Date.now() - DAY_MS))) >= REPORTS_PER_DAY) {
          throw tooManyRequests('reports.error.daily_limit', `At most ${REPORTS_PER_DAY} reports a day; try again later`, { 'retry-after': String(60 * 60) });
        }
        const inserted = await reports.insert({
          id: newId(),
          reporterId: caller.userId,
          reporterVerified: !!reporter?.phone_verified,
          targetType: input.target_type,
          targetId: input.target_id,
          targetOwnerId: ownerId,
          reason: input.reason,
          note: input.note ? input.note : null,
        });
        if (input.target_type === 'content' && (await reports.verifiedOpenReporters('content', input.target_id)) >= threshold) {
          held = await this.contents.in(tx).holdForReview(input.target_id);
        }
        return inserted;
      });
    } catch (err) {
      // Two reports of the same target by the same user at once: the unique index keeps one.
      if (isUniqueViolation(err)) throw alreadyReported();
      throw err;
    }
    if (held && ownerId) {
      // Every node drops its copies and listing pages before the reporter hears back.
      await this.app.events.publishAndWait('content.changed', { contentId: input.target_id, uploaderId: ownerId });
    }
    return reportView(row);
  }

  /**
   * The author of a target the caller can see (the user itself for a user), else 404: a content
   * item they may see (published and not held, or theirs), a comment on one, a message of a room
   * they are a member of, a user who exists.
   */
  async visibleTargetOwner(caller: Caller, type: TargetType, id: string): Promise<string> {
    if (!isUuid(id)) throw targetNotFound();
    switch (type) {
      case 'content': {
        const row = await this.contents.findMedia(id);
        if (!row || !mayViewContent(caller, row)) throw targetNotFound();
        return row.uploader_id;
      }
      case 'comment': {
        const head = await this.comments.findHead(id);
        const content = head ? await this.contents.findMedia(head.content_id) : null;
        if (!head || head.removed || !content || !mayViewContent(caller, content)) throw targetNotFound();
        return head.author_id;
      }
      case 'message': {
        const message = await this.chat.findMessage(id, caller.userId);
        if (!message || !message.member || message.deleted_at) throw targetNotFound();
        return message.sender_id;
      }
      case 'user': {
        const user = await this.users.findStanding(id);
        if (!user) throw targetNotFound();
        return user.id;
      }
    }
  }
}
