// Request shapes of the comment endpoints (and of the /comments socket namespace).
import { z } from 'zod';

const COMMENT_MAX_LENGTH = 2000;

/** Ids are strings; one that is not a UUID can never exist, so the service answers 404 for it. */
const id = z.string().trim().min(1).max(100);

export const createCommentBody = z.strictObject({
  contentId: id,
  msg: z.string().trim().min(1, 'must not be empty').max(COMMENT_MAX_LENGTH, `at most ${COMMENT_MAX_LENGTH} characters`),
  parentId: id.nullable().optional(),
});
export type CreateCommentInput = z.infer<typeof createCommentBody>;

// One emoji (sequence, with skin tones, ZWJ joins, flags) or a short code such as "thumbs_up".
// Joiners, variation selectors and keycaps stand alone in the class on purpose: the `+` matches
// an emoji sequence code point by code point.
// eslint-disable-next-line no-misleading-character-class
const EMOJI_RE = /^(?:[\p{Extended_Pictographic}\p{Regional_Indicator}\p{Emoji_Modifier}\u200d\ufe0f\u20e3#*0-9])+$/u;
const SHORTCODE_RE = /^[a-z0-9_+-]{1,32}$/;

export const reactionBody = z.strictObject({
  emoji: z
    .string()
    .trim()
    .min(1)
    .max(32)
    .refine(
      (v) => (EMOJI_RE.test(v) && /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(v)) || SHORTCODE_RE.test(v),
      'must be an emoji or a short code like thumbs_up',
    ),
});

export const contentIdParams = z.strictObject({ contentId: id });
export const commentIdParams = z.strictObject({ commentId: id });
export const subscribePayload = z.strictObject({ contentId: id });
