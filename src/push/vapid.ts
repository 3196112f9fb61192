// The VAPID key pair (RFC 8292) that signs every Web Push: made once by whichever node asks first
// and kept in `service_secrets` like the service's other secrets, so restarts and every node
// sign with the same key (browsers subscribed with its public key).
import webpush from 'web-push';
import type { Config } from '../config.js';
import type { ServiceSecretRepository } from '../secrets/index.js';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

const SECRET_NAME = 'web_push_vapid_keys';

export async function vapidKeys(secrets: ServiceSecretRepository): Promise<VapidKeys> {
  // Nodes racing here insert at most one pair; everyone then reads the winner.
  await secrets.insertIfAbsent(SECRET_NAME, JSON.stringify(webpush.generateVAPIDKeys()));
  const stored = await secrets.findValue(SECRET_NAME);
  if (stored === undefined) throw new Error('VAPID keys were not stored');
  const keys = JSON.parse(stored) as VapidKeys;
  return { publicKey: keys.publicKey, privateKey: keys.privateKey };
}

/**
 * The contact VAPID names to push services: the public address when it is https (production),
 * else a mailto: of its host name (push services require one of the two schemes).
 */
export function vapidSubject(config: Config): string {
  const base = new URL(config.publicBaseUrl);
  return base.protocol === 'https:' ? base.origin : `mailto:webpush@${base.hostname}`;
}
