// Request and response schemas of leaving (CONTRACT §22): account deletion and data export.
import { z } from 'zod';
import { PASSWORD_MAX } from '../auth/index.js';

export const deleteAccountBody = z.strictObject({
  password: z.string().min(1).max(PASSWORD_MAX),
  two_factor_code: z.string().trim().min(6).max(32).optional(),
});
export type DeleteAccountInput = z.output<typeof deleteAccountBody>;

export const deletionScheduledSchema = z.object({ deletion_scheduled_at: z.string() });

export const exportIdParams = z.strictObject({ exportId: z.uuid('must be an export id') });

export const exportViewSchema = z.object({
  export_id: z.string(),
  status: z.enum(['pending', 'ready', 'expired']),
  url: z.string().optional().describe("When ready: the ZIP, served to the owner's bearer token only, until expires_at"),
  expires_at: z.string().optional(),
});
