// The comment of SPEC 2.8 as clients see it (REST answers, `comment:new` and `comment:reply`
// pushes, the `comment.created` domain event): types only, so the event map can name it without
// importing a service.

/** SPEC 2.8 comment, plus `parentId` (null for top-level comments). */
export interface CommentView {
  _id: string;
  contentId: string;
  parentId: string | null;
  msg: string;
  author: { userId: string; name: string; avatarUrl: string | null };
  reactions: { author: { userId: string; name: string }; emoji: string }[];
  replyCount: number;
  createdAt: string;
  updatedAt: string;
}
