import { randomUUID, randomBytes, createHash } from 'node:crypto';

export const newId = (): string => randomUUID();

/** A url-safe random token (for refresh tokens, state values, receipts). */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** SHA-256 hex: how opaque tokens are kept at rest. */
export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID_RE.test(value);
