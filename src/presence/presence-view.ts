// Presence as clients see it (CONTRACT §18): the `presence` push on /chat and the items of
// GET /sns/api/v1/presence. Each view is declared once, as a zod schema; its type is the schema's
// output.
import { z } from 'zod';

/** The `presence` push (and the `presence.changed` domain event). */
export const presenceViewSchema = z.object({
  userId: z.string(),
  online: z.boolean(),
  last_seen_at: z.string().nullable().describe('When the last /chat socket of the user went; null if never'),
});

/** The `presence` push (and the `presence.changed` domain event). */
export type PresenceView = z.output<typeof presenceViewSchema>;

/** An item of GET /presence. */
export const presenceItemSchema = z.object({
  user_id: z.string(),
  online: z.boolean(),
  last_seen_at: z.string().nullable().describe('When the last /chat socket of the user went; null if never (or unknown user)'),
});

/** An item of GET /presence. */
export type PresenceItem = z.output<typeof presenceItemSchema>;
