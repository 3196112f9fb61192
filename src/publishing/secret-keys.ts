// The keys of the publishing domain, derived (HKDF-SHA256) from one 32-byte master key:
// PUBLISHING_SECRET_KEY when set, otherwise a key generated once and shared by every node
// through the service_secrets table (as the JWT secret is). Separate derived keys keep token
// encryption and OAuth-state signing independent of each other.
import { hkdfSync } from 'node:crypto';
import { getOrCreateServiceSecret } from '../secrets/index.js';
import type { ServiceSecretRepository } from '../secrets/index.js';

interface PublishingKeys {
  /** AES-256-GCM key for tokens and PKCE verifiers at rest. */
  tokenEncryptionKey: Buffer;
  /** HS256 key for the OAuth `state` values. */
  stateSigningKey: Uint8Array;
}

const SECRET_NAME = 'publishing_key';

export function decodeMasterKey(text: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
  if (key.length !== 32) throw new Error('PUBLISHING_SECRET_KEY must decode to 32 bytes');
  return key;
}

export function deriveKeys(master: Buffer): PublishingKeys {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), info, 32));
  return {
    tokenEncryptionKey: derive('social-token-encryption'),
    stateSigningKey: new Uint8Array(derive('social-oauth-state')),
  };
}

export async function loadPublishingKeys(secrets: ServiceSecretRepository, configured: string | undefined): Promise<PublishingKeys> {
  if (configured) return deriveKeys(decodeMasterKey(configured));
  return deriveKeys(decodeMasterKey(await getOrCreateServiceSecret(secrets, SECRET_NAME)));
}
