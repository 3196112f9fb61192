// The comment queries: one SELECT shape (comment + author + reply count + reactions) reused by
// every read, so every endpoint and socket event carries the same SPEC 2.8 comment.
import { sql, type SQL } from 'drizzle-orm';
import { Repository } from '../db/repository.js';
import { andNotAmong } from '../db/sql-fragments.js';
import type { KeysetPosition } from '../shared/cursor.js';

/** Reactions shown per comment (the most recent ones beyond this are left out of lists). */
const MAX_REACTIONS_SHOWN = 100;

export interface CommentHead {
  id: string;
  content_id: string;
  parent_id: string | null;
  author_id: string;
  /** A moderator removed it (CONTRACT §21): it reads as deleted. */
  removed: boolean;
}

interface ReactionColumns {
  userId: string;
  username: string;
  given_name: string;
  family_name: string;
  emoji: string;
}

export interface CommentRow {
  id: string;
  content_id: string;
  parent_id: string | null;
  msg: string;
  created_at: Date;
  updated_at: Date;
  author_id: string;
  /** Set when a moderator removed it: it reads as deleted. */
  removed_at: Date | null;
  username: string;
  given_name: string;
  family_name: string;
  picture: string | null;
  reply_count: number;
  reactions: ReactionColumns[];
}

const selectComments = (where: SQL, order: SQL, limit: number) => sql`
  select c.id, c.content_id, c.parent_id, c.msg, c.created_at, c.updated_at, c.author_id, c.removed_at,
         u.username, u.given_name, u.family_name, u.picture,
         (select count(*)::int from comments r where r.parent_id = c.id and r.deleted_at is null) as reply_count,
         coalesce((
           select json_agg(json_build_object('userId', x.user_id, 'username', x.username, 'given_name', x.given_name,
                                             'family_name', x.family_name, 'emoji', x.emoji) order by x.created_at)
           from (select cr.user_id, cr.emoji, cr.created_at, ru.username, ru.given_name, ru.family_name
                 from comment_reactions cr join users ru on ru.id = cr.user_id
                 where cr.comment_id = c.id order by cr.created_at desc limit ${MAX_REACTIONS_SHOWN}) x
         ), '[]'::json) as reactions
  from comments c join users u on u.id = c.author_id
  where c.deleted_at is null and (${where})
  order by ${order}
  limit ${limit}`;

export class CommentRepository extends Repository {
  /** Where a comment hangs and who wrote it. */
  async findHead(commentId: string): Promise<CommentHead | null> {
    const [row] = await this.db.rows<CommentHead>(sql`
      select id, content_id, parent_id, author_id, removed_at is not null as removed from comments where id = ${commentId} and deleted_at is null`);
    return row ?? null;
  }

  async insert(row: { id: string; contentId: string; authorId: string; parentId: string | null; msg: string; at: Date }): Promise<void> {
    await this.db.rows(sql`
      insert into comments (id, content_id, author_id, parent_id, msg, created_at, updated_at)
      values (${row.id}, ${row.contentId}, ${row.authorId}, ${row.parentId}, ${row.msg}, ${row.at.toISOString()}::timestamptz, ${row.at.toISOString()}::timestamptz)`);
  }

  async findById(commentId: string): Promise<CommentRow | null> {
    const [row] = await this.db.rows<CommentRow>(selectComments(sql`c.id = ${commentId}`, sql`c.created_at`, 1));
    return row ?? null;
  }

  /**
   * Top-level comments of a content item, newest first; `limit + 1` rows to know whether more
   * follow. `hiddenAuthors`: the viewer's blocked users, whose comments are left out.
   */
  topLevel(contentId: string, after: KeysetPosition | null, limit: number, hiddenAuthors: readonly string[] = []): Promise<CommentRow[]> {
    const where = after
      ? sql`c.content_id = ${contentId} and c.parent_id is null and (c.created_at, c.id) < (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid) ${andNotAmong(sql`c.author_id`, hiddenAuthors)}`
      : sql`c.content_id = ${contentId} and c.parent_id is null ${andNotAmong(sql`c.author_id`, hiddenAuthors)}`;
    return this.db.rows<CommentRow>(selectComments(where, sql`c.created_at desc, c.id desc`, limit + 1));
  }

  /** Replies to a top-level comment, oldest first (those of `hiddenAuthors` left out). */
  replies(parentId: string, after: KeysetPosition | null, limit: number, hiddenAuthors: readonly string[] = []): Promise<CommentRow[]> {
    const where = after
      ? sql`c.parent_id = ${parentId} and (c.created_at, c.id) > (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid) ${andNotAmong(sql`c.author_id`, hiddenAuthors)}`
      : sql`c.parent_id = ${parentId} ${andNotAmong(sql`c.author_id`, hiddenAuthors)}`;
    return this.db.rows<CommentRow>(selectComments(where, sql`c.created_at asc, c.id asc`, limit + 1));
  }

  /** A moderator removed the comment (CONTRACT §21): its text goes, it reads as deleted. False when it was already removed or is gone. */
  async markRemoved(commentId: string, at: Date): Promise<boolean> {
    const rows = await this.db.rows(sql`
      update comments set removed_at = ${at.toISOString()}::timestamptz, msg = '', updated_at = ${at.toISOString()}::timestamptz
      where id = ${commentId} and removed_at is null returning id`);
    return rows.length > 0;
  }

  async setReaction(commentId: string, userId: string, emoji: string): Promise<void> {
    await this.db.rows(sql`
      insert into comment_reactions (comment_id, user_id, emoji) values (${commentId}, ${userId}, ${emoji})
      on conflict (comment_id, user_id) do update set emoji = excluded.emoji, updated_at = now()`);
  }

  async removeReaction(commentId: string, userId: string): Promise<void> {
    await this.db.rows(sql`delete from comment_reactions where comment_id = ${commentId} and user_id = ${userId}`);
  }

  /**
   * Leaving (CONTRACT §22): the author's comments read as deleted (left out of every listing) and
   * their text is erased; their reactions on comments go. Idempotent.
   */
  async eraseAllBy(authorId: string): Promise<void> {
    await this.db.rows(sql`update comments set deleted_at = coalesce(deleted_at, now()), msg = '' where author_id = ${authorId}`);
    await this.db.rows(sql`delete from comment_reactions where user_id = ${authorId}`);
  }
}
