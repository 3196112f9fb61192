// Two-factor authentication (CONTRACT §11). Placeholder until the two-factor issue lands:
// no user can enable two-factor yet, so no login code can be right.
import type { AppContext } from '../context.js';
import type { TwoFactorCheck } from '../auth/two-factor-check.js';

export class TwoFactorService implements TwoFactorCheck {
  constructor(private readonly app: AppContext) {}

  async verifyLoginCode(_userId: string, _code: string): Promise<boolean> {
    void this.app;
    return false;
  }
}
