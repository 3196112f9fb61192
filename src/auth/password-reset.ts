// Password changes: reset by SMS code (forgot → confirm) and change with the old password.
// Either way the new password ends sessions that may have been opened with the old one:
// all of them after a reset (whoever asked for it may not hold any of them), all but the
// caller's own after a change.
import bcrypt from 'bcryptjs';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.js';
import { badRequest, notFound } from '../shared/errors.js';
import type { AccountService } from './accounts.js';
import type { CodeDeliveryDetails } from './otp.js';
import type { SessionService } from './sessions.js';

export class PasswordService {
  constructor(
    private readonly app: AppContext,
    private readonly accounts: AccountService,
    private readonly sessions: SessionService,
  ) {}

  /** Sends a reset code to a number that has an account (404 otherwise). */
  async forgotPassword(phoneInput: string): Promise<CodeDeliveryDetails> {
    const phone = this.accounts.phone(phoneInput);
    await this.accounts.requireUserIdByPhone(phone);
    return this.accounts.otp.issue(phone, 'forgot-password');
  }

  /**
   * Sets a new password with a reset code. The code proves the caller holds the phone, so the
   * number counts as verified from then on.
   */
  async confirmForgotPassword(phoneInput: string, code: string, newPassword: string): Promise<void> {
    const phone = this.accounts.phone(phoneInput);
    const userId = await this.accounts.requireUserIdByPhone(phone);
    await this.accounts.otp.consume(phone, ['forgot-password'], code, 'confirmation_code');
    const hash = await bcrypt.hash(newPassword, this.app.config.BCRYPT_ROUNDS);
    await this.app.database.rows(sql`
      update users set password_hash = ${hash}, phone_verified = true, updated_at = now() where id = ${userId}`);
    await this.sessions.revokeAllExcept(userId, null);
  }

  /** Changes the password after checking the old one; ends the user's other sessions. */
  async changePassword(caller: { userId: string; sessionId: string }, oldPassword: string, newPassword: string): Promise<number> {
    const [user] = await this.app.database.rows<{ password_hash: string }>(sql`
      select password_hash from users where id = ${caller.userId}`);
    if (!user) throw notFound('user.error.not_found', 'User not found');
    if (!(await bcrypt.compare(oldPassword, user.password_hash))) {
      throw badRequest('auth.error.invalid_password', 'The current password is not correct', {
        field: 'old_password',
        constraint: 'current password',
      });
    }
    const hash = await bcrypt.hash(newPassword, this.app.config.BCRYPT_ROUNDS);
    await this.app.database.rows(sql`update users set password_hash = ${hash}, updated_at = now() where id = ${caller.userId}`);
    return this.sessions.revokeAllExcept(caller.userId, caller.sessionId);
  }
}
