// Password changes: reset by SMS code (forgot → confirm) and change with the old password.
// Either way the new password ends sessions that may have been opened with the old one:
// all of them after a reset (whoever asked for it may not hold any of them), all but the
// caller's own after a change.
import bcrypt from 'bcryptjs';
import type { AppContext } from '../context.js';
import type { OtpService } from './otp.js';
import { badRequest, notFound } from '../shared/errors.js';
import type { AccountService } from './accounts.js';
import type { CodeDeliveryDetails } from './otp.js';
import type { SessionService } from './sessions.js';
import type { UserRepository } from './user-repository.js';

export class PasswordService {
  constructor(
    private readonly app: AppContext,
    private readonly users: UserRepository,
    private readonly accounts: AccountService,
    private readonly sessions: SessionService,
    private readonly otp: OtpService,
  ) {}

  /** Sends a reset code to a number that has an account (404 otherwise). */
  async forgotPassword(phoneInput: string): Promise<CodeDeliveryDetails> {
    const phone = this.accounts.phone(phoneInput);
    await this.accounts.requireUserIdByPhone(phone);
    return this.otp.issue(phone, 'forgot-password');
  }

  /**
   * Sets a new password with a reset code. The code proves the caller holds the phone, so the
   * number counts as verified from then on.
   */
  async confirmForgotPassword(phoneInput: string, code: string, newPassword: string): Promise<void> {
    const phone = this.accounts.phone(phoneInput);
    const userId = await this.accounts.requireUserIdByPhone(phone);
    await this.otp.consume(phone, ['forgot-password'], code, 'confirmation_code');
    const hash = await bcrypt.hash(newPassword, this.app.config.BCRYPT_ROUNDS);
    await this.users.setPasswordHashAndVerifyPhone(userId, hash);
    await this.app.events.publishAndWait('user.changed', { userId });
    await this.sessions.revokeAllExcept(userId, null);
  }

  /** Changes the password after checking the old one; ends the user's other sessions. */
  async changePassword(caller: { userId: string; sessionId: string }, oldPassword: string, newPassword: string): Promise<number> {
    const passwordHash = await this.users.findPasswordHash(caller.userId);
    if (passwordHash === undefined) throw notFound('user.error.not_found', 'User not found');
    if (!(await bcrypt.compare(oldPassword, passwordHash))) {
      throw badRequest('auth.error.invalid_password', 'The current password is not correct', {
        field: 'old_password',
        constraint: 'current password',
      });
    }
    const hash = await bcrypt.hash(newPassword, this.app.config.BCRYPT_ROUNDS);
    await this.users.setPasswordHash(caller.userId, hash);
    return this.sessions.revokeAllExcept(caller.userId, caller.sessionId);
  }
}
