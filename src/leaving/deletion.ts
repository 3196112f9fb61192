// Deleting one's account (CONTRACT §22). What must hold at once is done inside the request, in
// the one revoking transaction (src/auth/revocations.ts), so it commits together with the notices
// to every node's caches and is answered only once every node will refuse the user's sessions:
// - every session ends (tokens refused on every node, sockets dropped);
// - the users row is anonymised: the phone number and username are free to register again, login
//   with the old number answers as for an unknown number, the profile answers 404;
// - the user's content items are deleted (404 to everyone, gone from every listing; their media
//   files are withdrawn by the erasure), comments read as deleted, messages become tombstones,
//   follows go both ways, one-time codes sent to the number go;
// - the erasure job is scheduled (account_erasures), which erases the rest within the hour
//   (erasure.ts).
import bcrypt from 'bcryptjs';
import type { Queryable } from '../db/client.js';
import type { UserRepository } from '../auth/index.js';
import type { SessionRepository } from '../auth/index.js';
import type { OtpRepository } from '../auth/index.js';
import type { ContentRepository } from '../content/index.js';
import type { CommentRepository } from '../comments/index.js';
import type { ChatRepository } from '../chat/index.js';
import type { FollowRepository } from '../follows/index.js';
import type { Revocations } from '../auth/index.js';
import type { TwoFactorCheck } from '../auth/index.js';
import { badRequest, conflict, notFound, unauthorized } from '../shared/errors.js';
import { ADMIN_ROLE } from '../authorization/index.js';
import type { AuditLog } from '../audit/index.js';
import type { ErasureRepository } from './erasure-repository.js';
import type { DeleteAccountInput } from './schemas.js';

/** The erasure will have run within this long of the request (CONTRACT §22: within an hour). */
export const ERASURE_WITHIN_SECONDS = 3600;

export class AccountDeletion {
  constructor(
    private readonly users: UserRepository,
    private readonly sessions: SessionRepository,
    private readonly otpCodes: OtpRepository,
    private readonly contents: ContentRepository,
    private readonly comments: CommentRepository,
    private readonly chat: ChatRepository,
    private readonly follows: FollowRepository,
    private readonly erasures: ErasureRepository,
    private readonly revocations: Revocations,
    private readonly twoFactor: TwoFactorCheck,
    private readonly auditLog: AuditLog,
    /** Called once a deletion is committed: the erasure workers look at once. */
    private readonly scheduled: () => void,
  ) {}

  /** DELETE /auth/api/v1/user/me. */
  async deleteAccount(userId: string, input: DeleteAccountInput): Promise<{ deletion_scheduled_at: string }> {
    const user = await this.users.findForDeletion(userId);
    if (!user) throw notFound('user.error.not_found', 'User not found');
    if (!(await bcrypt.compare(input.password, user.password_hash))) {
      throw badRequest('auth.error.invalid_password', 'The password is not correct', { field: 'password', constraint: 'current password' });
    }
    if (user.two_factor_enabled) {
      if (!input.two_factor_code) throw unauthorized('auth.error.two_factor_required', 'A two-factor code is required (two_factor_code)');
      if (!(await this.twoFactor.verifyLoginCode(userId, input.two_factor_code))) {
        throw unauthorized('auth.error.invalid_two_factor_code', 'The two-factor code is not correct');
      }
    }
    let dueBy: Date | undefined;
    await this.revocations.revoke(async (tx) => {
      const change = await this.deleteAtOnce(tx, userId);
      dueBy = change.dueBy;
      return change.revoked;
    });
    this.scheduled();
    return { deletion_scheduled_at: (dueBy ?? new Date()).toISOString() };
  }

  private async deleteAtOnce(tx: Queryable, userId: string) {
    const users = this.users.in(tx);
    // Administrators leave one at a time (the rows are locked), and never the last one that can
    // act: a suspended administrator counts for none (only an administrator could restore them).
    await users.lockActiveAdminIds();
    const admins = await users.activeHolders(ADMIN_ROLE);
    if (admins.includes(userId) && admins.length === 1) {
      throw conflict('authorization.error.last_admin', 'The last active administrator cannot delete their account');
    }
    const phone = await users.findLivePhone(userId);
    if (phone === undefined) throw notFound('user.error.not_found', 'User not found');
    await this.otpCodes.in(tx).deleteForPhone(phone);
    await users.anonymise(userId);
    // A deleted account holds no role beyond the default (it counts as no administrator).
    await users.replaceRoles(userId, ['end_user'], 'end_user');
    const ended = await this.sessions.in(tx).revokeAllExcept(userId, null);
    await this.contents.in(tx).softDeleteAllOf(userId);
    await this.comments.in(tx).eraseAllBy(userId);
    await this.chat.in(tx).eraseAllBy(userId);
    const followPeers = await this.follows.in(tx).deleteAllOf(userId);
    const dueBy = await this.erasures.in(tx).schedule(userId, ERASURE_WITHIN_SECONDS);
    // Ids only: nothing personal goes into the log (CONTRACT §21, §22).
    await this.auditLog.append({ actorId: userId, action: 'account.delete', targetType: 'user', targetId: userId }, tx);
    return {
      dueBy,
      revoked: {
        sessions: ended.map((sessionId) => ({ userId, sessionId })),
        // The user's cached sessions, profile and items, and the follow counts of the others.
        users: [userId, ...followPeers],
        listings: true,
      },
    };
  }
}
