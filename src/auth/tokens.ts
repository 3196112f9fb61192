// Access tokens are short-lived HS256 JWTs (jose) carrying the user id (`sub`) and the session id
// (`sid`); every request also checks that session in the database, so logout and revocation take
// effect at once on every node. Refresh tokens rotate (CONTRACT §19): a session's n-th refresh
// token is `<n>.<signature>`, signed for that session with the same key, so a token already used
// (a smaller n than the session's current one) is told from one never issued without keeping
// every used token; the database keeps only the current one's hash (src/auth/sessions.ts).
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { getOrCreateServiceSecret } from '../secrets/index.js';
import type { ServiceSecretRepository } from '../secrets/index.js';
import { unauthorized } from '../shared/errors.js';

const ISSUER = 'real-estate-video-service';
const AUDIENCE = 'api';

interface AccessClaims {
  userId: string;
  sessionId: string;
  username: string;
}

/** A verified token's claims and when it expires (ms since the epoch). */
interface VerifiedToken {
  claims: AccessClaims;
  expiresAt: number;
}

/**
 * Tokens already verified are not verified again for the rest of their lifetime: a token's
 * signature and claims never change, only its session can end (checked on every request).
 */
const VERIFIED_TOKENS_MAX = 100_000;

export class TokenService {
  private readonly verified = new LRUCache<string, VerifiedToken>({ max: VERIFIED_TOKENS_MAX });

  private constructor(
    /** Imported once: given as bytes, jose would import the key again on every sign and verify. */
    private readonly key: KeyObject,
    readonly accessTtlSeconds: number,
  ) {}

  /** Uses JWT_SECRET when set; otherwise a secret generated once and shared through the database. */
  static async create(secrets: ServiceSecretRepository, jwtSecret: string | undefined, accessTtlSeconds: number): Promise<TokenService> {
    const secret = jwtSecret ?? (await getOrCreateServiceSecret(secrets, 'jwt_secret', 48));
    return new TokenService(createSecretKey(Buffer.from(secret, 'utf8')), accessTtlSeconds);
  }

  async signAccessToken(claims: AccessClaims): Promise<string> {
    return new SignJWT({ sid: claims.sessionId, username: claims.username, typ: 'access' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${this.accessTtlSeconds}s`)
      .sign(this.key);
  }

  /** The `generation`-th refresh token of session `sessionId`. */
  refreshToken(sessionId: string, generation: number): string {
    const signature = createHmac('sha256', this.key).update(`refresh-token:${sessionId}:${generation}`).digest('base64url');
    return `${generation}.${signature}`;
  }

  /** Which of session `sessionId`'s refresh tokens `token` is, or null when it is none of them. */
  refreshTokenGeneration(sessionId: string, token: string): number | null {
    const parts = /^(\d{1,9})\.[\w-]{43}$/.exec(token);
    if (!parts) return null;
    const generation = Number(parts[1]);
    const expected = Buffer.from(this.refreshToken(sessionId, generation));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given) ? generation : null;
  }

  /** Verifies signature, issuer, audience and expiry; throws 401 with a precise code. */
  async verifyAccessToken(token: string): Promise<AccessClaims> {
    const known = this.verified.get(token);
    if (known) {
      if (Date.now() >= known.expiresAt) {
        this.verified.delete(token);
        throw unauthorized('auth.error.token_expired', 'Access token expired');
      }
      return known.claims;
    }
    try {
      const { payload } = await jwtVerify(token, this.key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
      if (payload.typ !== 'access' || typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || typeof payload.exp !== 'number') {
        throw unauthorized('auth.error.invalid_token', 'Invalid access token');
      }
      const claims = { userId: payload.sub, sessionId: payload.sid, username: typeof payload.username === 'string' ? payload.username : '' };
      // Tokens over 4 KB are not ours to remember (a signed one of ours is a few hundred bytes).
      if (token.length <= 4096) this.verified.set(token, { claims, expiresAt: payload.exp * 1000 });
      return claims;
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw unauthorized('auth.error.token_expired', 'Access token expired');
      if (err instanceof joseErrors.JOSEError) throw unauthorized('auth.error.invalid_token', 'Invalid access token');
      throw err;
    }
  }
}
