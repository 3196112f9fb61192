// Request schema of POST /content/api/v1/auth/2fa/toggle (SPEC §4.7, CONTRACT §11).
import { z } from 'zod';
import { PASSWORD_MAX, phoneNumberField } from '../auth/index.js';

export const toggleTwoFactorBody = z
  .object({
    action: z.enum(['enable', 'disable']),
    /** The confirmation SPEC §4.7 leaves unnamed (CONTRACT §11). */
    current_password: z.string().min(1, 'required').max(PASSWORD_MAX),
    phone_number: phoneNumberField.optional(),
    verification_code: z.string().trim().min(6).max(32).optional(),
  })
  .superRefine((body, ctx) => {
    if (body.action === 'enable' && body.phone_number === undefined) {
      ctx.addIssue({ code: 'custom', path: ['phone_number'], message: 'required to enable two-factor' });
    }
    if (body.action === 'disable' && body.verification_code === undefined) {
      ctx.addIssue({ code: 'custom', path: ['verification_code'], message: 'required to disable two-factor' });
    }
  });

export type ToggleTwoFactorInput = z.infer<typeof toggleTwoFactorBody>;
