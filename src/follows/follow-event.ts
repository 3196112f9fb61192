// A new follow as it is announced (the domain event `follow.created`) and pushed to the followed
// user (`follow:new` on /notifications, CONTRACT §7): one shape, declared once.
import { z } from 'zod';

export const followCreatedSchema = z.object({
  follower_id: z.string(),
  following_id: z.string(),
  created_at: z.string(),
  follower: z.object({ name: z.string(), avatar: z.string().nullable() }),
});
export type FollowCreated = z.output<typeof followCreatedSchema>;
