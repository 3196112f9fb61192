// The public surface of src/comments/: what other domains and the doors use of it.
export type { CommentRepository } from './comment-repository.js';
export { commentViewSchema } from './comment-view.js';
export { commentIdParams, contentIdParams, createCommentBody, reactionBody } from './schemas.js';
export { subscribePayload } from './schemas.js';
export type { CommentView } from './comment-view.js';
