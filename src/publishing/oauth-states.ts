// The OAuth `state` round trip. `state` is a short HS256 JWT (jose) naming the user, the platform
// and a row of social_oauth_states; the row holds the PKCE verifier (sealed), so the verifier never
// travels through the browser. A state is single use (consumed by an atomic update) and expires
// after ten minutes (both in the JWT and in the row). Only the user it was issued to can use it:
// whoever completes the link must present the state in a request authenticated as that user.
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { badRequest, forbidden } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { OAuthStateRepository } from './oauth-state-repository.js';
import { newCodeVerifier } from './pkce.js';
import type { Platform } from './platforms.js';
import type { TokenCipher } from '../shared/token-cipher.js';

export const STATE_TTL_SECONDS = 600;
const ISSUER = 'real-estate-video-service';
const AUDIENCE = 'social-oauth';

const verifierContext = (stateId: string) => `oauth-state:${stateId}:code_verifier`;

export class OAuthStates {
  constructor(
    private readonly states: OAuthStateRepository,
    private readonly cipher: TokenCipher,
    private readonly signingKey: Uint8Array,
  ) {}

  async issue(userId: string, platform: Platform): Promise<{ state: string; codeVerifier: string }> {
    const id = newId();
    const codeVerifier = newCodeVerifier();
    // Old rows are useless after expiry; trim them as new ones are made.
    await this.states.deleteLongExpired();
    await this.states.insert({
      id,
      userId,
      platform,
      codeVerifierSealed: this.cipher.seal(codeVerifier, verifierContext(id)),
      ttlSeconds: STATE_TTL_SECONDS,
    });
    const state = await new SignJWT({ plat: platform })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setJti(id)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${STATE_TTL_SECONDS}s`)
      .sign(this.signingKey);
    return { state, codeVerifier };
  }

  /**
   * Verifies a state and uses it up for `callerId`. A bad or spent state is a 400 naming why; a
   * valid state issued to someone else is a 403 and is left untouched, so a third party who got
   * hold of it can neither link with it nor spend it before its owner does.
   */
  async consume(platform: Platform, state: string, callerId: string): Promise<{ codeVerifier: string }> {
    let userId: string;
    let stateId: string;
    try {
      const { payload } = await jwtVerify(state, this.signingKey, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
      if (payload.plat !== platform || typeof payload.sub !== 'string' || typeof payload.jti !== 'string') throw invalidState();
      userId = payload.sub;
      stateId = payload.jti;
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw expiredState();
      throw invalidState();
    }
    if (userId.toLowerCase() !== callerId.toLowerCase()) {
      throw forbidden('publishing.error.state_mismatch', 'This authorization was started by another user; start the linking again from your own account');
    }
    const row = await this.states.markUsed(stateId, userId, platform);
    if (!row) {
      if (await this.states.wasUsed(stateId, userId))
        throw badRequest('publishing.error.state_used', 'This authorization state was already used; start the linking again', {
          field: 'state',
          constraint: 'single use',
        });
      throw invalidState();
    }
    if (row.expired) throw expiredState();
    return { codeVerifier: this.cipher.open(row.code_verifier_enc, verifierContext(stateId)) };
  }
}

const invalidState = () =>
  badRequest('publishing.error.invalid_state', 'Invalid authorization state', { field: 'state', constraint: 'signed by this service' });
const expiredState = () =>
  badRequest('publishing.error.state_expired', 'The authorization state expired; start the linking again', {
    field: 'state',
    constraint: `at most ${STATE_TTL_SECONDS} seconds old`,
  });
