// Key material for two-factor data at rest: AES-256-GCM for TOTP secrets and HMAC-SHA256 for
// backup codes, both derived (HKDF) from one root key. The root is TWO_FACTOR_ENCRYPTION_KEY when
// set (keep it outside the database so a dump alone cannot reveal secrets), otherwise a random
// key created once in service_secrets and shared by every node.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.js';

const SECRET_ROW = 'two_factor_root_key';
const FORMAT = 'v1';

export class TwoFactorKeys {
  private constructor(
    private readonly encryptionKey: Buffer,
    private readonly hmacKey: Buffer,
  ) {}

  static async load(app: AppContext): Promise<TwoFactorKeys> {
    const root = app.config.TWO_FACTOR_ENCRYPTION_KEY ?? (await storedRootKey(app));
    const derive = (info: string) => Buffer.from(hkdfSync('sha256', root, 'two-factor', info, 32));
    return new TwoFactorKeys(derive('totp-secret-encryption'), derive('backup-code-hmac'));
  }

  /** `v1.<iv>.<tag>.<ciphertext>` (base64url parts). */
  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  decrypt(sealed: string): string {
    const [format, iv, tag, body] = sealed.split('.');
    if (format !== FORMAT || !iv || !tag || body === undefined) throw new Error('unknown two-factor secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** Keyed hash of a normalised backup code: equality lookups, useless without the key. */
  hashBackupCode(normalisedCode: string): string {
    return createHmac('sha256', this.hmacKey).update(normalisedCode).digest('hex');
  }
}

async function storedRootKey(app: AppContext): Promise<string> {
  // Nodes racing here insert at most one row; everyone then reads the winner.
  await app.database.rows(sql`
    insert into service_secrets (name, value) values (${SECRET_ROW}, ${randomBytes(32).toString('base64url')})
    on conflict (name) do nothing`);
  const [row] = await app.database.rows<{ value: string }>(sql`select value from service_secrets where name = ${SECRET_ROW}`);
  return row.value;
}
