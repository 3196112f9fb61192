// What login needs from two-factor: whether a code is right for a user. The two-factor module
// provides the implementation; login only depends on this interface.
export interface TwoFactorCheck {
  /** True when `code` is a current TOTP code or an unused backup code of the user (consumes it). */
  verifyLoginCode(userId: string, code: string): Promise<boolean>;
}
