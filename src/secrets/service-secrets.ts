// Secrets the service makes for itself when the operator gives none (JWT key, encryption roots),
// kept in the `service_secrets` table so that restarts and every node of a deployment share them.
import { randomBytes } from 'node:crypto';
import type { ServiceSecretRepository } from './service-secret-repository.js';

/** The stored secret `name`, created (`bytes` random bytes, base64url) by whichever node asks first. */
export async function getOrCreateServiceSecret(secrets: ServiceSecretRepository, name: string, bytes = 32): Promise<string> {
  // Nodes racing here insert at most one row; everyone then reads the winner.
  await secrets.insertIfAbsent(name, randomBytes(bytes).toString('base64url'));
  const value = await secrets.findValue(name);
  if (value === undefined) throw new Error(`service secret ${name} was not stored`);
  return value;
}
