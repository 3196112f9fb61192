// Key material for two-factor data at rest: AES-256-GCM for TOTP secrets and HMAC-SHA256 for
// backup codes, both derived (HKDF) from one root key. The root is TWO_FACTOR_ENCRYPTION_KEY when
// set (keep it outside the database so a dump alone cannot reveal secrets), otherwise a random
// key created once in service_secrets and shared by every node.
import { createHmac, hkdfSync } from 'node:crypto';
import { getOrCreateServiceSecret } from '../secrets/index.js';
import type { ServiceSecretRepository } from '../secrets/index.js';
import { TokenCipher } from '../shared/token-cipher.js';
import type { AppContext } from '../context.js';

const SECRET_ROW = 'two_factor_root_key';

export class TwoFactorKeys {
  private readonly cipher: TokenCipher;

  private constructor(
    encryptionKey: Buffer,
    private readonly hmacKey: Buffer,
  ) {
    this.cipher = new TokenCipher(encryptionKey);
  }

  static async load(app: AppContext, secrets: ServiceSecretRepository): Promise<TwoFactorKeys> {
    const root = app.config.TWO_FACTOR_ENCRYPTION_KEY ?? (await getOrCreateServiceSecret(secrets, SECRET_ROW));
    const derive = (info: string) => Buffer.from(hkdfSync('sha256', root, 'two-factor', info, 32));
    return new TwoFactorKeys(derive('totp-secret-encryption'), derive('backup-code-hmac'));
  }

  /** `v1.<iv>.<tag>.<ciphertext>` (base64url parts). */
  encrypt(plaintext: string): string {
    return this.cipher.seal(plaintext, '');
  }

  decrypt(sealed: string): string {
    return this.cipher.open(sealed, '');
  }

  /** Keyed hash of a normalised backup code: equality lookups, useless without the key. */
  hashBackupCode(normalisedCode: string): string {
    return createHmac('sha256', this.hmacKey).update(normalisedCode).digest('hex');
  }
}
