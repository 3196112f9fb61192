// Comment rules: who may comment, where a reply hangs, paging, reactions; publishes
// `comment.created` once the comment is stored (realtime pushes it from there).
// Comments follow their content item's visibility (as its detail): on a deleted item nothing is
// possible, and an item that is not published takes and shows comments and reactions for its
// uploader and administrators only. Everyone else gets the 404 of an item that does not exist.
import type { AppContext } from '../context.js';
import { requirePermission, type Caller } from '../auth/index.js';
import { badRequest, forbidden, notFound } from '../shared/errors.js';
import { isUuid, newId } from '../shared/ids.js';
import { decodeCursor, pageOf, type PageQuery } from '../shared/cursor.js';
import { avatarUrl, displayName } from '../shared/person.js';
import type { CommentHead, CommentRepository, CommentRow } from './comment-repository.js';
import type { ContentMediaRow, ContentRepository } from '../content/index.js';
import type { Queryable } from '../db/client.js';
import type { NotificationService } from '../notifications/index.js';
import type { BlockService } from '../blocks/index.js';
import { mayViewContent } from '../content/index.js';
import type { CreateCommentInput } from './schemas.js';
import type { CommentView } from './comment-view.js';

interface CommentPage {
  comments: CommentView[];
  hasMore: boolean;
  nextCursor: string | null;
}

const contentNotFound = () =>
  notFound('comments.error.content_not_found', 'Content not found', { field: 'contentId', constraint: 'must name an existing content item' });
const commentNotFound = (field = 'commentId') =>
  notFound('comments.error.comment_not_found', 'Comment not found', { field, constraint: 'must name an existing comment' });

export class CommentService {
  constructor(
    private readonly app: AppContext,
    private readonly repository: CommentRepository,
    private readonly contents: ContentRepository,
    private readonly notifications: NotificationService,
    private readonly blocks: BlockService,
  ) {}

  async createComment(caller: Caller, input: CreateCommentInput): Promise<CommentView> {
    requirePermission(caller, 'create:comment');
    const content = await this.visibleContent(input.contentId, caller);

    // Replies hang under a top-level comment only: a reply to a reply is stored under that
    // reply's top-level parent, and its author (the person answered) is notified.
    let parentId: string | null = null;
    let parentAuthorId: string | null = null;
    if (input.parentId) {
      // A comment on an item the caller cannot see does not exist for them (not even as a mismatch).
      const parent = await this.visibleComment(caller, input.parentId, 'parentId');
      if (parent.content_id !== input.contentId) {
        throw badRequest('comments.error.parent_mismatch', 'The parent comment belongs to another content item', {
          field: 'parentId',
          constraint: 'must be a comment on the same content item',
        });
      }
      parentId = parent.parent_id ?? parent.id;
      parentAuthorId = parent.author_id;
    }
    // CONTRACT §21: no comment on the content of someone blocked either way, no reply to their comments.
    const others = [content.uploader_id, ...(parentAuthorId ? [parentAuthorId] : [])];
    if ((await this.blocks.amongEitherWay(caller.userId, others)).size) {
      throw forbidden('comments.error.blocked', 'You cannot comment here');
    }

    const id = newId();
    await this.app.database.transaction(async (tx) => {
      await this.repository.in(tx).insert({ id, contentId: input.contentId, authorId: caller.userId, parentId, msg: input.msg, at: new Date() });
      await this.notifyAbout(tx, {
        id,
        contentId: input.contentId,
        uploaderId: content.uploader_id,
        authorId: caller.userId,
        parentAuthorId,
        msg: input.msg,
        // Names in a comment on an item not published yet are not told: they could not see it.
        mayMention: mayViewContent(null, content),
      });
    });
    this.notifications.deliverSoon();
    const comment = await this.view(id);
    await this.app.events.publishAndWait('comment.created', { comment, parentAuthorId });
    return comment;
  }

  async listTopLevel(caller: Caller | null, contentId: string, query: PageQuery): Promise<CommentPage> {
    const after = decodeCursor(query.cursor);
    await this.assertContentExists(contentId, caller);
    const hidden = await this.blocks.hiddenFrom(caller?.userId);
    return this.page(await this.repository.topLevel(contentId, after, query.limit, [...hidden]), query.limit);
  }

  async listReplies(caller: Caller | null, commentId: string, query: PageQuery): Promise<CommentPage> {
    const after = decodeCursor(query.cursor);
    await this.visibleComment(caller, commentId, 'commentId', true);
    const hidden = await this.blocks.hiddenFrom(caller?.userId);
    return this.page(await this.repository.replies(commentId, after, query.limit, [...hidden]), query.limit);
  }

  /** One reaction per user per comment: reacting again replaces the emoji. */
  async react(caller: Caller, commentId: string, emoji: string): Promise<CommentView> {
    requirePermission(caller, 'create:reaction');
    const head = await this.visibleComment(caller, commentId);
    // As a comment is refused on the item of someone blocked either way, so is a reaction under it.
    await this.blocks.assertMayReact(caller.userId, [head.author_id, head.uploader_id]);
    await this.repository.setReaction(commentId, caller.userId, emoji);
    return this.view(commentId);
  }

  async removeReaction(caller: Caller, commentId: string): Promise<CommentView> {
    requirePermission(caller, 'create:reaction');
    await this.visibleComment(caller, commentId);
    await this.repository.removeReaction(commentId, caller.userId);
    return this.view(commentId);
  }

  /**
   * The content item exists for this caller: live, and published or theirs to manage. Also the
   * check of socket `content:subscribe`, so no one hears the comments of an item they cannot see.
   */
  async assertContentExists(contentId: string, caller: Caller | null): Promise<void> {
    await this.visibleContent(contentId, caller);
  }

  private async visibleContent(contentId: string, caller: Caller | null): Promise<ContentMediaRow> {
    const content = isUuid(contentId) ? await this.contents.findMedia(contentId) : null;
    if (!content || !mayViewContent(caller, content)) throw contentNotFound();
    return content;
  }

  /**
   * The notifications of a new comment, in its transaction (CONTRACT §17): `reply` to the author
   * of the comment answered, `comment` to the item's uploader (unless already told by the reply),
   * `mention` to each `@username` not told already. notify skips the author's own.
   */
  private async notifyAbout(
    tx: Queryable,
    c: { id: string; contentId: string; uploaderId: string; authorId: string; parentAuthorId: string | null; msg: string; mayMention: boolean },
  ): Promise<void> {
    const data = { contentId: c.contentId, commentId: c.id };
    const subject = { type: 'comment', id: c.id };
    if (c.parentAuthorId) {
      await this.notifications.notify(tx, { userId: c.parentAuthorId, type: 'reply', actorId: c.authorId, subject, data });
    }
    if (c.uploaderId !== c.parentAuthorId) {
      await this.notifications.notify(tx, { userId: c.uploaderId, type: 'comment', actorId: c.authorId, subject, data });
    }
    if (!c.mayMention) return;
    const told = [c.uploaderId, ...(c.parentAuthorId ? [c.parentAuthorId] : [])];
    await this.notifications.notifyMentions(tx, { text: c.msg, actorId: c.authorId, commentId: c.id, contentId: c.contentId, skip: told });
  }

  /** The comment (and its item's uploader), when its content item is live and the caller may see it; else 404 on `field`. */
  private async visibleComment(
    caller: Caller | null,
    commentId: string,
    field = 'commentId',
    removedToo = false,
  ): Promise<CommentHead & { uploader_id: string }> {
    const head = isUuid(commentId) ? await this.repository.findHead(commentId) : null;
    const content = head ? await this.contents.findMedia(head.content_id) : null;
    if (!head || !content || !mayViewContent(caller, content)) throw commentNotFound(field);
    // A comment a moderator removed takes no reply or reaction; its replies still list.
    if (head.removed && !removedToo) throw commentNotFound(field);
    return { ...head, uploader_id: content.uploader_id };
  }

  private async view(commentId: string): Promise<CommentView> {
    const row = await this.repository.findById(commentId);
    if (!row) throw commentNotFound();
    return this.toView(row);
  }

  private page(rows: CommentRow[], limit: number): CommentPage {
    const { page, hasMore, nextCursor } = pageOf(rows, limit);
    return { comments: page.map((r) => this.toView(r)), hasMore, nextCursor };
  }

  private toView(row: CommentRow): CommentView {
    // A removed comment keeps its place (its replies hang under it) and shows nothing of itself.
    if (row.removed_at) {
      return {
        _id: row.id,
        contentId: row.content_id,
        parentId: row.parent_id,
        msg: '',
        author: { userId: row.author_id, name: displayName(row), avatarUrl: avatarUrl(this.app.config, row.picture) },
        reactions: [],
        replyCount: row.reply_count,
        createdAt: row.created_at.toISOString(),
        updatedAt: row.updated_at.toISOString(),
        deleted: true,
      };
    }
    return {
      _id: row.id,
      contentId: row.content_id,
      parentId: row.parent_id,
      msg: row.msg,
      author: { userId: row.author_id, name: displayName(row), avatarUrl: avatarUrl(this.app.config, row.picture) },
      reactions: row.reactions.map((r) => ({
        author: { userId: r.userId, name: displayName(r) },
        emoji: r.emoji,
      })),
      replyCount: row.reply_count,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }
}
