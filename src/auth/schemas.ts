// Request schemas of the account endpoints (SPEC §4.1). Limits that SPEC leaves open are ours:
// see the README.
import { z } from 'zod';

const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

export const phoneNumberField = z.string().trim().min(5).max(32);
export const passwordField = z.string().min(PASSWORD_MIN, `at least ${PASSWORD_MIN} characters`).max(PASSWORD_MAX);
export const otpField = z.string().regex(/^\d{6}$/, '6 digits');
export const nameField = z.string().trim().min(1).max(100);

export const registerBody = z.strictObject({
  username: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._-]{3,32}$/, '3-32 letters, digits, dot, underscore or dash'),
  password: passwordField,
  phone_number: phoneNumberField,
  given_name: nameField,
  family_name: nameField,
});

export const phoneBody = z.object({ phone_number: phoneNumberField });

export const verifyOtpBody = z.object({ phone_number: phoneNumberField, otp: otpField });

export const loginBody = z.object({
  phone_number: phoneNumberField,
  password: z.string().min(1).max(PASSWORD_MAX),
  two_factor_code: z.string().trim().min(6).max(32).optional(),
});

export const refreshBody = z.object({ refresh_token: z.string().min(1).max(512) });

/** The client's user agent, for the sessions list (never refused; SessionService keeps 512 characters). */
export const userAgentHeader = z.object({ 'user-agent': z.string().default('') });

export const sessionHeaders = z.object({
  'x-user-username': z.string().min(1, 'required').max(64),
  'x-session-id': z.uuid('must be a session id'),
});
