// The public surface of src/auth/: what other domains and the doors use of it.
export { DEFAULT_ROLE } from './accounts.js';
export { requirePermission, requireSameIdentity } from './caller.js';
export type { Caller, CallerResolver } from './caller.js';
export type { OtpRepository } from './otp-repository.js';
export { normalisePhoneNumber } from './phone.js';
export {
  avatarHeaders,
  changePasswordBody,
  confirmForgotPasswordBody,
  followHeaders,
  optionalFollowHeaders,
  profileQuery,
  updateProfileBody,
  userIdParams,
} from './profile-schemas.js';
export {
  avatarSchema,
  codeSentSchema,
  followSchema,
  loginSchema,
  messageDataSchema,
  profileSchema,
  refreshedSchema,
  registeredSchema,
} from './response-schemas.js';
export type { FollowRecord } from './response-schemas.js';
export type { Revocations } from './revocations.js';
export type { NewDeviceAlerts } from './sessions.js';
export { PASSWORD_MAX, loginBody, phoneBody, phoneNumberField, refreshBody, registerBody, sessionHeaders, userAgentHeader, verifyOtpBody } from './schemas.js';
export type { SessionRepository } from './session-repository.js';
export type { TwoFactorCheck } from './two-factor-check.js';
export type { TwoFactorUserRow, UserRepository } from './user-repository.js';
export { can } from './caller.js';
