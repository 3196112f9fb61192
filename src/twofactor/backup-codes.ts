// Backup codes: 10 single-use codes shown once at enable time, like `k7m2p-x9q4t`.
// An alphabet without look-alikes (0/o, 1/l/i) keeps them easy to type; 10 characters of 31
// symbols are about 49 bits each, and guessing is capped by the same lock as TOTP codes.
import { randomInt } from 'node:crypto';

const BACKUP_CODE_COUNT = 10;
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const LENGTH = 10;

export function generateBackupCodes(count = BACKUP_CODE_COUNT): string[] {
  const codes = new Set<string>();
  while (codes.size < count) {
    let raw = '';
    for (let i = 0; i < LENGTH; i++) raw += ALPHABET[randomInt(0, ALPHABET.length)];
    codes.add(`${raw.slice(0, 5)}-${raw.slice(5)}`);
  }
  return [...codes];
}

/** Case, spaces and dashes do not matter when a code is typed back. */
export const normaliseBackupCode = (input: string): string => input.toLowerCase().replace(/[\s-]/g, '');

export const looksLikeBackupCode = (normalised: string): boolean => normalised.length === LENGTH && [...normalised].every((c) => ALPHABET.includes(c));
