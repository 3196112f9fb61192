// Web Push request bodies (CONTRACT §17): a browser's PushSubscription as `toJSON()` gives it.
import { z } from 'zod';

/** Endpoints are push-service URLs; real ones are a few hundred characters. */
const MAX_ENDPOINT_LENGTH = 2048;

/** base64url (padding tolerated) that decodes to exactly `bytes` bytes. */
const base64urlOfLength = (bytes: number, what: string) =>
  z
    .string()
    .max(128)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, 'base64url')
    .refine((v) => Buffer.from(v, 'base64url').length === bytes, `${what}: ${bytes} bytes, base64url`);

const endpoint = z
  .url({ protocol: /^https$/ })
  .max(MAX_ENDPOINT_LENGTH)
  .describe('The push service URL of the subscription (https)');

export const pushSubscriptionBody = z.strictObject({
  endpoint,
  keys: z.strictObject({
    p256dh: base64urlOfLength(65, 'an uncompressed P-256 public key').describe("The browser's P-256 public key (65 bytes, base64url)"),
    auth: base64urlOfLength(16, 'an auth secret').describe('The 16-byte authentication secret (base64url)'),
  }),
});

export type PushSubscriptionBody = z.infer<typeof pushSubscriptionBody>;

export const pushUnsubscribeBody = z.strictObject({ endpoint });
