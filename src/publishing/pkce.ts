// PKCE (RFC 7636) verifier and challenges. Google takes the RFC's S256 form
// (BASE64URL(SHA-256(verifier))); TikTok's Login Kit documents its S256 challenge as the
// hex-encoded SHA-256 of the verifier, so each platform gets its own encoding.
import { createHash, randomBytes } from 'node:crypto';

/** 64 characters from the unreserved set [A-Za-z0-9-_] (RFC 7636 allows 43-128). */
export const newCodeVerifier = (): string => randomBytes(48).toString('base64url');

export const s256Base64Url = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');

export const s256Hex = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('hex');
