// Login guessing is limited per account as well as per address (CONTRACT §19): 10 failed logins
// for one account within 15 minutes (a sliding window), from any addresses, make every login for
// it answer 429 with Retry-After until the oldest of those tries is 15 minutes old. A try is
// counted before its password is checked, and forgiven once the password proved right, so
// concurrent guesses cannot pass the limit together. A phone number with no account is counted
// exactly like one with an account (no enumeration, CONTRACT §14). This is a rule about guessing,
// not about load: RATE_LIMIT_SCALE does not change it (docs/accounts.md).
import { randomUUID } from 'node:crypto';
import { tooManyRequests } from '../shared/errors.js';
import { sha256 } from '../shared/ids.js';
import type { FailedLoginStore } from './failed-login-store.js';

export const FAILED_LOGINS_PER_ACCOUNT = 10;
export const FAILED_LOGIN_WINDOW_MS = 15 * 60_000;

/** A login try, counted as failed unless `forgive` is called. */
export interface LoginTry {
  forgive(): Promise<void>;
}

export class LoginGuard {
  constructor(private readonly store: FailedLoginStore) {}

  /**
   * Counts a try for the account named `account` (the phone number as typed when it is not one),
   * or throws 429 when its window is full.
   */
  async begin(account: string): Promise<LoginTry> {
    // Hashed: the counter's key says nothing of the number.
    const key = sha256(account);
    const id = randomUUID();
    const waitMs = await this.store.take(key, id, FAILED_LOGINS_PER_ACCOUNT, FAILED_LOGIN_WINDOW_MS);
    if (waitMs > 0) {
      throw tooManyRequests('auth.error.too_many_failed_logins', 'Too many failed logins for this account; try again later', {
        'Retry-After': String(Math.ceil(waitMs / 1000)),
      });
    }
    return { forgive: () => this.store.forget(key, id) };
  }
}
