// The `data` of the account, profile and follow answers as zod schemas, for the OpenAPI document
// and the typed client; the services answer with these schemas' output types (declared once).
import { z } from 'zod';

/** The answers whose only data is a sentence saying what happened (verify, logout, password changes…). */
export const messageDataSchema = z.object({ message: z.string() });

const codeDelivery = z
  .object({
    Destination: z.string().describe('The phone number, masked'),
    DeliveryMedium: z.literal('SMS'),
    AttributeName: z.literal('phone_number'),
  })
  .describe('Where the code was sent');

/** `send-otp` and `forgot-password`. */
export const codeSentSchema = z.object({ CodeDeliveryDetails: codeDelivery });

export const registeredSchema = z.object({
  UserSub: z.string().describe('The new user id'),
  UserConfirmed: z.literal(false).describe('The phone number is not verified yet'),
  CodeDeliveryDetails: codeDelivery,
});

export const loginSchema = z.object({
  AccessToken: z.string(),
  RefreshToken: z.string().describe('For POST /refresh-token, with the SessionId'),
  ExpiresIn: z.number().describe('Seconds the access token lives'),
  TokenType: z.literal('Bearer'),
  SessionId: z.string(),
  user: z.object({ sub: z.string(), username: z.string(), phone_number: z.string(), name: z.string(), role: z.string() }),
});

export const refreshedSchema = z.object({
  AccessToken: z.string(),
  RefreshToken: z.string().describe("The session's next refresh token: the one sent is used up, and sending a used one again ends the session"),
  ExpiresIn: z.number().describe('Seconds the access token lives'),
  TokenType: z.literal('Bearer'),
  SessionId: z.string(),
});

export const profileSchema = z.object({
  sub: z.string(),
  username: z.string(),
  email: z.string().nullable().describe("null on another user's profile"),
  email_verified: z.boolean(),
  phone_number: z.string().nullable().describe("null on another user's profile"),
  phone_number_verified: z.boolean(),
  name: z.string(),
  given_name: z.string(),
  family_name: z.string(),
  picture: z.string().nullable(),
  role: z.string().describe('The primary role: the highest of admin, moderator, broker, end_user the user holds, else the first'),
  roles: z.array(z.string()).describe('Every role the user holds, in the order assigned'),
  follower_number: z.number(),
  following_number: z.number(),
  is_following: z.boolean().describe("Whether the caller follows this user (false on one's own profile)"),
});

export const avatarSchema = z.object({ picture: z.string().describe('URL of the new avatar') });

export const followSchema = z.object({ follower_id: z.string(), following_id: z.string(), created_at: z.string() });

// The types the services answer with (declared once, here).
export type CodeDeliveryDetails = z.output<typeof codeDelivery>;
export type Registered = z.output<typeof registeredSchema>;
export type LoginResult = z.output<typeof loginSchema>;
export type Refreshed = z.output<typeof refreshedSchema>;
export type UserProfile = z.output<typeof profileSchema>;
/** The follow record of SPEC 2.10. */
export type FollowRecord = z.output<typeof followSchema>;
