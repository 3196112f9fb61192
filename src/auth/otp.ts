// One-time codes (CONTRACT §3): 6 digits, stored only as bcrypt hashes, single use, expiring
// after OTP_TTL seconds, locked after 5 wrong tries, and sent through the SMS provider.
import bcrypt from 'bcryptjs';
import { randomInt } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { SmsPurpose } from '../sms/index.js';
import { AppError, badRequest, tooManyRequests } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { OtpRepository } from './otp-repository.js';
import { maskPhoneNumber } from './phone.js';
import type { CodeDeliveryDetails } from './response-schemas.js';

const MAX_CODE_ATTEMPTS = 5;
/** Codes sent to one number for one purpose within an hour before further sends are refused. */
const MAX_CODES_PER_HOUR = 5;
/** Codes are short-lived secrets: a cheap hash is enough next to expiry and the try limit. */
const CODE_HASH_ROUNDS = 6;

export type { CodeDeliveryDetails };

const MESSAGES: Record<SmsPurpose, (code: string) => string> = {
  register: (c) => `Your verification code is ${c}. It expires in 5 minutes.`,
  'send-otp': (c) => `Your verification code is ${c}. It expires in 5 minutes.`,
  'forgot-password': (c) => `Your password reset code is ${c}. If you did not ask for it, ignore this message.`,
  'two-factor': (c) => `Your two-factor code is ${c}.`,
};

export class OtpService {
  constructor(
    private readonly app: AppContext,
    private readonly codes: OtpRepository,
  ) {}

  /** Creates a code for (phone, purpose), sends it, and answers the masked delivery details. */
  async issue(phoneNumber: string, purpose: SmsPurpose): Promise<CodeDeliveryDetails> {
    const sentLastHour = await this.codes.countLastHour(phoneNumber, purpose);
    if (sentLastHour >= MAX_CODES_PER_HOUR) {
      throw tooManyRequests('auth.error.too_many_codes', 'Too many codes requested for this number; try again later');
    }
    // Per-hour limits alone let a patient guesser try 5 codes x 5 tries every hour forever: a daily
    // cap over every purpose bounds the guesses a number can be made to face (CONTRACT §19).
    const lastDay = await this.codes.countLastDay(phoneNumber);
    if (lastDay.n >= this.app.config.OTP_DAILY_LIMIT) {
      throw tooManyRequests('auth.error.daily_code_limit', 'Too many codes sent to this number in the last 24 hours; try again later', {
        'Retry-After': String(Math.max(1, lastDay.retry_after ?? 86_400)),
      });
    }
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const codeHash = await bcrypt.hash(code, CODE_HASH_ROUNDS);
    await this.codes.insert({ id: newId(), phoneNumber, purpose, codeHash, ttlSeconds: this.app.config.OTP_TTL });
    try {
      await this.app.sms.send({ to: phoneNumber, purpose, code, body: MESSAGES[purpose](code) });
    } catch (err) {
      this.app.log.error({ err, purpose }, 'SMS delivery failed');
      throw new AppError(500, 'sms.error.delivery_failed', 'Could not send the code');
    }
    return { Destination: maskPhoneNumber(phoneNumber), DeliveryMedium: 'SMS', AttributeName: 'phone_number' };
  }

  /**
   * Checks `code` against the newest code for the number among `purposes` and consumes it.
   * Each try counts (claimed atomically before comparing), so parallel guessing gains nothing.
   */
  async consume(phoneNumber: string, purposes: SmsPurpose[], code: string, field = 'otp'): Promise<void> {
    const latest = await this.codes.findLatest(phoneNumber, purposes);
    if (!latest || latest.consumed) {
      throw badRequest('auth.error.invalid_code', 'No active code for this number; request a new one', { field, constraint: 'active code' });
    }
    if (latest.expired) throw badRequest('auth.error.code_expired', 'The code has expired; request a new one', { field, constraint: 'not expired' });
    if (!(await this.codes.claimAttempt(latest.id, MAX_CODE_ATTEMPTS))) {
      throw badRequest('auth.error.code_locked', 'Too many wrong tries; request a new code', { field, constraint: `at most ${MAX_CODE_ATTEMPTS} tries` });
    }
    if (!(await bcrypt.compare(code, latest.code_hash))) {
      throw badRequest('auth.error.invalid_code', 'The code is not correct', { field, constraint: 'matching code' });
    }
    if (!(await this.codes.consume(latest.id))) throw badRequest('auth.error.invalid_code', 'The code was already used', { field, constraint: 'single use' });
  }
}
