// Request schemas of the password-reset, profile, avatar, change-password and follow endpoints
// (SPEC §4.1). Limits SPEC leaves open are ours: see docs/accounts.md.
import { z } from 'zod';
import { nameField, otpField, passwordField, phoneNumberField, PASSWORD_MAX } from './schemas.js';

const EMAIL_MAX = 254;

export const confirmForgotPasswordBody = z.object({
  phone_number: phoneNumberField,
  confirmation_code: otpField,
  new_password: passwordField,
});

export const profileQuery = z.object({
  user_id: z.uuid('must be a user id').optional(),
});

export const updateProfileBody = z
  .strictObject({
    given_name: nameField.optional(),
    family_name: nameField.optional(),
    // null removes the address.
    email: z.email('must be an email address').max(EMAIL_MAX).toLowerCase().nullable().optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'at least one of given_name, family_name, email',
  });

export const changePasswordBody = z
  .object({
    old_password: z.string().min(1).max(PASSWORD_MAX),
    new_password: passwordField,
  })
  .refine((b) => b.old_password !== b.new_password, {
    message: 'must differ from old_password',
    path: ['new_password'],
  });

/** Identity headers of PUT /user/avatar (SPEC §5.6). */
export const avatarHeaders = z.object({
  'x-user-id': z.uuid("must be the caller's user id"),
  'x-user-username': z.string().min(1, 'required').max(64),
});

/** The X-User-ID header of the follow endpoints. */
export const followHeaders = z.object({
  'x-user-id': z.uuid("must be the caller's user id"),
});

export const optionalFollowHeaders = z.object({
  'x-user-id': z.uuid("must be the caller's user id").optional(),
});

export const userIdParams = z.object({
  userId: z.uuid('must be a user id'),
});
