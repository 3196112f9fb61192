// Account life cycle: register → verify phone → log in (a session) → refresh → log out.
import bcrypt from 'bcryptjs';
import type { AppContext } from '../context.js';
import { badRequest, forbidden, isUniqueViolation, notFound, unauthorized } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { fullName } from '../shared/person.js';
import { OtpService } from './otp.js';
import type { CodeDeliveryDetails, LoginResult, Refreshed, Registered } from './response-schemas.js';
import { normalisePhoneNumber } from './phone.js';
import type { LoginGuard } from './login-guard.js';
import type { SessionService } from './sessions.js';
import type { TokenService } from './tokens.js';

/** The role a registered account starts with (src/authorization/catalogue.ts seeds it). */
export const DEFAULT_ROLE = 'end_user';
import type { TwoFactorCheck } from './two-factor-check.js';
import type { UserRepository } from './user-repository.js';

interface RegisterInput {
  username: string;
  password: string;
  phone_number: string;
  given_name: string;
  family_name: string;
}

// Compared against when the phone number has no account, so both failures take as long.
const DUMMY_HASH = bcrypt.hashSync('not-a-real-password', 10);

export class AccountService {
  constructor(
    private readonly app: AppContext,
    private readonly users: UserRepository,
    private readonly tokens: TokenService,
    private readonly sessions: SessionService,
    private readonly twoFactor: TwoFactorCheck,
    private readonly otp: OtpService,
    /** Failed logins per account (CONTRACT §19). */
    private readonly loginGuard: LoginGuard,
  ) {}

  phone(input: string, field = 'phone_number'): string {
    return normalisePhoneNumber(input, this.app.config.DEFAULT_PHONE_REGION, field);
  }

  async register(input: RegisterInput): Promise<Registered> {
    const phone = this.phone(input.phone_number);
    const userId = newId();
    const passwordHash = await bcrypt.hash(input.password, this.app.config.BCRYPT_ROUNDS);
    try {
      await this.users.insert({
        id: userId,
        username: input.username,
        passwordHash,
        phoneNumber: phone,
        givenName: input.given_name,
        familyName: input.family_name,
        role: DEFAULT_ROLE,
      });
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw badRequest('auth.error.user_exists', 'A user with this username or phone number already exists', {
          field: 'username',
          constraint: 'unique username and phone number',
        });
      }
      throw err;
    }
    const delivery = await this.otp.issue(phone, 'register');
    return { UserSub: userId, UserConfirmed: false, CodeDeliveryDetails: delivery };
  }

  /** send-otp: a fresh verification code to a number that has an account (404 otherwise). */
  async sendOtp(phoneInput: string): Promise<CodeDeliveryDetails> {
    const phone = this.phone(phoneInput);
    await this.requireUserIdByPhone(phone);
    return this.otp.issue(phone, 'send-otp');
  }

  async verifyPhone(phoneInput: string, code: string): Promise<void> {
    const phone = this.phone(phoneInput);
    const userId = await this.requireUserIdByPhone(phone);
    await this.otp.consume(phone, ['register', 'send-otp'], code);
    await this.users.markPhoneVerified(userId);
    await this.app.events.publishAndWait('user.changed', { userId });
  }

  async requireUserIdByPhone(phone: string): Promise<string> {
    const userId = await this.users.findIdByPhone(phone);
    if (!userId) throw notFound('auth.error.user_not_found', 'No account with this phone number', { field: 'phone_number', constraint: 'registered' });
    return userId;
  }

  async login(input: { phone_number: string; password: string; two_factor_code?: string }, userAgent: string, ip: string): Promise<LoginResult> {
    const invalid = () => badRequest('auth.error.invalid_credentials', 'Phone number or password is incorrect');
    let phone: string | null = null;
    try {
      phone = this.phone(input.phone_number);
    } catch {
      // Not a phone number: counted as typed, and answered as a wrong password (below).
    }
    // Counted as a failure unless forgiven once the password proves right (429 when too many).
    const attempt = await this.loginGuard.begin(phone ?? input.phone_number.trim());
    const user = phone === null ? undefined : await this.users.findForLogin(phone);
    const passwordOk = await bcrypt.compare(input.password, user?.password_hash ?? DUMMY_HASH);
    if (!user || !passwordOk || phone === null) throw invalid();
    // A wrong two-factor code is a failed login too; a missing one is the first of two steps.
    if (user.two_factor_enabled && input.two_factor_code && !(await this.twoFactor.verifyLoginCode(user.id, input.two_factor_code))) {
      throw unauthorized('auth.error.invalid_two_factor_code', 'The two-factor code is not correct');
    }
    await attempt.forgive();
    if (!user.phone_verified) {
      throw badRequest('auth.error.phone_not_verified', 'Verify the phone number with the code sent by SMS first', {
        field: 'phone_number',
        constraint: 'verified',
      });
    }
    if (user.two_factor_enabled && !input.two_factor_code) {
      throw unauthorized('auth.error.two_factor_required', 'A two-factor code is required (two_factor_code)');
    }
    // Once the password (and two-factor code) proved right: a suspension is told to its owner only (CONTRACT §21).
    if (user.suspended) throw forbidden('auth.error.account_suspended', 'This account is suspended');
    const { sessionId, refreshToken, newDevice } = await this.sessions.open(user.id, userAgent, ip);
    if (newDevice) await this.alertNewDevice(phone, userAgent);
    const accessToken = await this.tokens.signAccessToken({ userId: user.id, sessionId, username: user.username });
    return {
      AccessToken: accessToken,
      RefreshToken: refreshToken,
      ExpiresIn: this.tokens.accessTtlSeconds,
      TokenType: 'Bearer',
      SessionId: sessionId,
      user: { sub: user.id, username: user.username, phone_number: phone, name: fullName(user.given_name, user.family_name), role: user.role },
    };
  }

  /** The SMS of a login from a new device (privacy.login_notifications): no code, no token, only the agent. */
  private async alertNewDevice(phone: string, userAgent: string): Promise<void> {
    const agent = userAgent.replace(/[^\x20-\x7e]/g, '').slice(0, 80) || 'an unknown device';
    try {
      await this.app.sms.send({
        to: phone,
        purpose: 'login-alert',
        body: `New sign-in to your account from ${agent}. If this was not you, change your password and end your other sessions.`,
      });
    } catch (err) {
      // The login stands; the inbox has the notification.
      this.app.log.error({ err }, 'login alert SMS failed');
    }
  }

  /** A new access token and the session's next refresh token; the one presented is used up (CONTRACT §19). */
  async refresh(sessionId: string, username: string, refreshToken: string): Promise<Refreshed> {
    const refreshed = await this.sessions.rotateRefreshToken(sessionId, username, refreshToken);
    if (refreshed.outcome === 'reused') {
      throw unauthorized('auth.error.refresh_token_reused', 'This refresh token was already used: the session has been ended, log in again');
    }
    if (refreshed.outcome === 'invalid') throw unauthorized('auth.error.invalid_refresh_token', 'Refresh token, session or username is not valid');
    const accessToken = await this.tokens.signAccessToken({ userId: refreshed.userId, sessionId, username: refreshed.username });
    return {
      AccessToken: accessToken,
      RefreshToken: refreshed.refreshToken,
      ExpiresIn: this.tokens.accessTtlSeconds,
      TokenType: 'Bearer' as const,
      SessionId: sessionId,
    };
  }

  async logout(caller: { userId: string; sessionId: string; username: string }, sessionIdHeader: string, usernameHeader: string): Promise<void> {
    if (sessionIdHeader !== caller.sessionId || usernameHeader.toLowerCase() !== caller.username.toLowerCase()) {
      throw unauthorized('auth.error.session_mismatch', 'X-Session-Id and X-User-Username must match the access token');
    }
    await this.sessions.revoke(caller.userId, caller.sessionId);
  }
}
