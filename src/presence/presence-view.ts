// Presence as clients see it (CONTRACT §18): the `presence` push on /chat and the items of
// GET /sns/api/v1/presence. Types and zod schemas only.
import { z } from 'zod';

/** The `presence` push (and the `presence.changed` domain event). */
export interface PresenceView {
  userId: string;
  online: boolean;
  /** When the user's last /chat socket went; null while never seen offline. */
  last_seen_at: string | null;
}

/** An item of GET /presence. */
export interface PresenceItem {
  user_id: string;
  online: boolean;
  last_seen_at: string | null;
}

export const presenceViewSchema = z.object({
  userId: z.string(),
  online: z.boolean(),
  last_seen_at: z.string().nullable().describe('When the last /chat socket of the user went; null if never'),
});

export const presenceItemSchema = z.object({
  user_id: z.string(),
  online: z.boolean(),
  last_seen_at: z.string().nullable().describe('When the last /chat socket of the user went; null if never (or unknown user)'),
});

type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const viewsMatch: [SameShape<z.output<typeof presenceViewSchema>, PresenceView>, SameShape<z.output<typeof presenceItemSchema>, PresenceItem>] = [true, true];
void viewsMatch;
