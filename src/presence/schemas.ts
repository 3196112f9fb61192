// Request shape of GET /sns/api/v1/presence.
import { z } from 'zod';

/** Users asked about in one request (CONTRACT §18). */
export const MAX_PRESENCE_IDS = 100;

export const presenceQuery = z.strictObject({
  user_ids: z
    .string()
    .max(MAX_PRESENCE_IDS * 101, 'too long')
    .transform((v) => v.split(',').map((id) => id.trim()))
    .pipe(
      z
        .array(z.string().min(1, 'must not contain empty ids').max(100, 'ids are at most 100 characters'))
        .min(1)
        .max(MAX_PRESENCE_IDS, `at most ${MAX_PRESENCE_IDS} user ids`),
    )
    .describe(`Comma-separated user ids, 1-${MAX_PRESENCE_IDS}`),
});
