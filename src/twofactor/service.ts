// Two-factor authentication (CONTRACT §11): TOTP (RFC 6238, 30-second steps, 6 digits, one step
// of clock drift either way) plus 10 single-use backup codes. Every code check, at login or when
// disabling, counts against one per-user budget: after MAX_CODE_FAILURES wrong codes the account's
// two-factor check is locked for LOCK_SECONDS (429), so codes cannot be guessed.
import bcrypt from 'bcryptjs';
import { authenticator } from 'otplib';
import QRCode from 'qrcode';
import type { AppContext } from '../context.js';
import type { TwoFactorCheck } from '../auth/index.js';
import { normalisePhoneNumber } from '../auth/index.js';
import type { TwoFactorUserRow, UserRepository } from '../auth/index.js';
import type { ServiceSecretRepository } from '../secrets/index.js';
import { AppError, badRequest, conflict, notFound } from '../shared/errors.js';
import { TwoFactorKeys } from './keys.js';
import type { ToggleTwoFactorInput } from './schemas.js';
import type { TwoFactorRepository } from './two-factor-repository.js';
import { generateBackupCodes, looksLikeBackupCode, normaliseBackupCode } from './backup-codes.js';

const MAX_CODE_FAILURES = 5;
const LOCK_SECONDS = 15 * 60;
const TOTP_ISSUER = 'Real Estate Video';
const TOTP_STEP_SECONDS = 30;

const totp = authenticator.clone({ step: TOTP_STEP_SECONDS, digits: 6, window: 1 });

interface TwoFactorEnabled {
  two_factor_enabled: true;
  backup_codes: string[];
  /** PNG data URI of a QR code holding `otpauth_url`. */
  qr_code: string;
  /** For authenticator apps that take a link or manual entry instead of a scan. */
  otpauth_url: string;
  secret: string;
}

type CodeCheck = { result: 'ok' } | { result: 'wrong' } | { result: 'locked'; retryAfterSeconds: number };

export class TwoFactorService implements TwoFactorCheck {
  private keys: Promise<TwoFactorKeys> | null = null;

  constructor(
    private readonly app: AppContext,
    private readonly repository: TwoFactorRepository,
    private readonly users: UserRepository,
    private readonly secrets: ServiceSecretRepository,
  ) {}

  /** The toggle of SPEC §4.7: the action's answer and the message that goes with it. */
  async toggle(userId: string, input: ToggleTwoFactorInput): Promise<{ message: string; data: TwoFactorEnabled | { two_factor_enabled: false } }> {
    // The body schema requires phone_number to enable and verification_code to disable.
    if (input.action === 'enable') {
      const data = await this.enable(userId, { current_password: input.current_password, phone_number: input.phone_number ?? '' });
      return { message: 'Two-factor authentication enabled; keep the backup codes somewhere safe', data };
    }
    const data = await this.disable(userId, { current_password: input.current_password, verification_code: input.verification_code ?? '' });
    return { message: 'Two-factor authentication disabled', data };
  }

  private async enable(userId: string, input: { current_password: string; phone_number: string }): Promise<TwoFactorEnabled> {
    const user = await this.requireUserWithPassword(userId, input.current_password);
    const phone = normalisePhoneNumber(input.phone_number, this.app.config.DEFAULT_PHONE_REGION);
    if (phone !== user.phone_number) {
      throw badRequest('auth.error.phone_mismatch', 'The phone number is not the one of this account', {
        field: 'phone_number',
        constraint: "the account's own phone number",
      });
    }
    if (user.two_factor_enabled) throw alreadyEnabled();

    const keys = await this.getKeys();
    const secret = totp.generateSecret(20);
    const otpauthUrl = totp.keyuri(user.username, TOTP_ISSUER, secret);
    const backupCodes = generateBackupCodes();
    await this.app.database.transaction(async (tx) => {
      if (!(await this.users.in(tx).setTwoFactorEnabled(userId, true))) throw alreadyEnabled();
      const twoFactor = this.repository.in(tx);
      const hashes = backupCodes.map((code) => keys.hashBackupCode(normaliseBackupCode(code)));
      await twoFactor.replaceCredentials(userId, keys.encrypt(secret), hashes);
    });
    const qrCode = await QRCode.toDataURL(otpauthUrl, { errorCorrectionLevel: 'M', margin: 2, width: 256 });
    return { two_factor_enabled: true, backup_codes: backupCodes, qr_code: qrCode, otpauth_url: otpauthUrl, secret };
  }

  private async disable(userId: string, input: { current_password: string; verification_code: string }): Promise<{ two_factor_enabled: false }> {
    const user = await this.requireUserWithPassword(userId, input.current_password);
    if (!user.two_factor_enabled) {
      throw conflict('auth.error.two_factor_not_enabled', 'Two-factor authentication is not enabled', {
        field: 'action',
        constraint: 'two-factor enabled',
      });
    }
    const check = await this.checkCode(userId, input.verification_code);
    if (check.result === 'locked') throw lockedError(check.retryAfterSeconds);
    if (check.result === 'wrong') {
      throw badRequest('auth.error.invalid_code', 'The verification code is not correct or was already used', {
        field: 'verification_code',
        constraint: 'a current TOTP code or an unused backup code',
      });
    }
    await this.app.database.transaction(async (tx) => {
      await this.users.in(tx).setTwoFactorEnabled(userId, false);
      await this.repository.in(tx).deleteCredentials(userId);
    });
    return { two_factor_enabled: false };
  }

  /** Login's check: a current TOTP code or an unused backup code (consumed). 429 while locked. */
  async verifyLoginCode(userId: string, code: string): Promise<boolean> {
    const check = await this.checkCode(userId, code);
    if (check.result === 'locked') throw lockedError(check.retryAfterSeconds);
    return check.result === 'ok';
  }

  private getKeys(): Promise<TwoFactorKeys> {
    this.keys ??= TwoFactorKeys.load(this.app, this.secrets).catch((err) => {
      this.keys = null;
      throw err;
    });
    return this.keys;
  }

  private async requireUserWithPassword(userId: string, password: string): Promise<TwoFactorUserRow> {
    const user = await this.users.findForTwoFactor(userId);
    if (!user) throw notFound('auth.error.user_not_found', 'The account no longer exists');
    if (!(await bcrypt.compare(password, user.password_hash))) {
      throw badRequest('auth.error.invalid_password', 'The current password is not correct', {
        field: 'current_password',
        constraint: 'the account password',
      });
    }
    return user;
  }

  /**
   * Each try is counted before the code is compared (one atomic update), so parallel guesses
   * cannot slip past the budget. A right code resets the count.
   */
  private async checkCode(userId: string, rawCode: string): Promise<CodeCheck> {
    const code = rawCode.trim();
    const claimed = await this.repository.claimAttempt(userId);
    if (!claimed) {
      const secondsLeft = await this.repository.lockSecondsLeft(userId);
      return secondsLeft === undefined ? { result: 'wrong' } : { result: 'locked', retryAfterSeconds: Math.max(1, secondsLeft) };
    }
    if (claimed.failed_attempts > MAX_CODE_FAILURES) {
      await this.repository.lock(userId, LOCK_SECONDS);
      return { result: 'locked', retryAfterSeconds: LOCK_SECONDS };
    }
    const ok = (await this.matchesTotp(userId, claimed.secret_encrypted, code)) || (await this.consumeBackupCode(userId, code));
    if (ok) {
      await this.repository.resetFailedAttempts(userId);
      return { result: 'ok' };
    }
    if (claimed.failed_attempts >= MAX_CODE_FAILURES) await this.repository.lock(userId, LOCK_SECONDS);
    return { result: 'wrong' };
  }

  /** A TOTP code within ±1 step, and of a later step than the last one accepted (no replay). */
  private async matchesTotp(userId: string, secretEncrypted: string, code: string): Promise<boolean> {
    if (!/^\d{6}$/.test(code)) return false;
    const secret = (await this.getKeys()).decrypt(secretEncrypted);
    const delta = totp.checkDelta(code, secret);
    if (delta === null) return false;
    const step = Math.floor(Date.now() / 1000 / TOTP_STEP_SECONDS) + delta;
    return this.repository.acceptTotpStep(userId, step);
  }

  private async consumeBackupCode(userId: string, code: string): Promise<boolean> {
    const normalised = normaliseBackupCode(code);
    if (!looksLikeBackupCode(normalised)) return false;
    const hash = (await this.getKeys()).hashBackupCode(normalised);
    return this.repository.consumeBackupCode(userId, hash);
  }
}

const alreadyEnabled = () =>
  conflict('auth.error.two_factor_already_enabled', 'Two-factor authentication is already enabled; disable it first to get a new secret', {
    field: 'action',
    constraint: 'two-factor disabled',
  });

const lockedError = (retryAfterSeconds: number) =>
  new AppError(429, 'auth.error.two_factor_locked', 'Too many wrong two-factor codes; try again later', undefined, {
    'Retry-After': String(retryAfterSeconds),
  });
