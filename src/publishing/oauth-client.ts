// OAuth 2.0 with PKCE for every platform: the authorization URL, the code exchange and the token
// refresh. TikTok's Login Kit v2 and Google's OAuth differ only in names and small habits (the
// client id parameter, the challenge encoding, the response fields, where errors are), which each
// platform states as data below. Base URLs come from configuration, so a stand-in can play both.
import type { Config } from '../config.js';
import type { Platform, PlatformTokens } from './platforms.js';
import { s256Base64Url, s256Hex } from './pkce.js';
import { tiktokApiUrl } from './tiktok-client.js';
import { GrantRejectedError, callPlatform, readJson, upstreamError } from './upstream.js';
import { googleErrorCode } from './youtube-client.js';

interface OAuthPlatform {
  platform: Platform;
  authorizationUrl: string;
  tokenUrl: string;
  /** The name the platform gives the client id parameter. */
  clientIdParam: 'client_key' | 'client_id';
  clientId: string;
  clientSecret: string;
  scope: string;
  /** Further authorization parameters, sent after scope. */
  authorizationExtras: Record<string, string>;
  /** The S256 code challenge in the platform's encoding. */
  codeChallenge: (verifier: string) => string;
  tokenHeaders: Record<string, string>;
  /** The token answer's field holding the refresh token's lifetime, in seconds. */
  refreshExpiresInField: string;
  /** The token answer's field naming the platform account; null when there is none. */
  externalIdField: string | null;
  /** True when an `error` field means failure even beside an access token (TikTok answers errors with 200). */
  errorBesideToken: boolean;
}

const oauthPlatforms = (config: Config): Record<Platform, OAuthPlatform> => ({
  tiktok: {
    platform: 'tiktok',
    authorizationUrl: config.TIKTOK_AUTH_URL,
    tokenUrl: tiktokApiUrl(config, '/v2/oauth/token/'),
    clientIdParam: 'client_key',
    clientId: config.TIKTOK_CLIENT_KEY,
    clientSecret: config.TIKTOK_CLIENT_SECRET,
    scope: 'user.info.basic,video.publish,video.upload',
    authorizationExtras: {},
    // TikTok documents its S256 challenge as hex, not the RFC's base64url.
    codeChallenge: s256Hex,
    tokenHeaders: { 'Cache-Control': 'no-cache' },
    refreshExpiresInField: 'refresh_expires_in',
    externalIdField: 'open_id',
    errorBesideToken: true,
  },
  youtube: {
    platform: 'youtube',
    authorizationUrl: config.YOUTUBE_AUTH_URL,
    tokenUrl: config.YOUTUBE_TOKEN_URL,
    clientIdParam: 'client_id',
    clientId: config.YOUTUBE_CLIENT_ID,
    clientSecret: config.YOUTUBE_CLIENT_SECRET,
    scope: 'https://www.googleapis.com/auth/youtube.upload',
    // A refresh token comes only with offline access, and again only when consent is asked again.
    authorizationExtras: { access_type: 'offline', prompt: 'consent' },
    codeChallenge: s256Base64Url,
    tokenHeaders: {},
    refreshExpiresInField: 'refresh_token_expires_in',
    // The upload-only scope cannot read the channel.
    externalIdField: null,
    errorBesideToken: false,
  },
});

export class OAuthClient {
  private constructor(private readonly spec: OAuthPlatform) {}

  /** One client per platform. */
  static forPlatforms(config: Config): Record<Platform, OAuthClient> {
    const specs = oauthPlatforms(config);
    return { tiktok: new OAuthClient(specs.tiktok), youtube: new OAuthClient(specs.youtube) };
  }

  authorizationUrl(input: { state: string; codeVerifier: string; redirectUri: string }): string {
    const url = new URL(this.spec.authorizationUrl);
    url.searchParams.set(this.spec.clientIdParam, this.spec.clientId);
    url.searchParams.set('redirect_uri', input.redirectUri);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', this.spec.scope);
    for (const [name, value] of Object.entries(this.spec.authorizationExtras)) url.searchParams.set(name, value);
    url.searchParams.set('state', input.state);
    url.searchParams.set('code_challenge', this.spec.codeChallenge(input.codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
    return url.toString();
  }

  exchangeCode(code: string, codeVerifier: string, redirectUri: string): Promise<PlatformTokens> {
    return this.token('token exchange', {
      code,
      grant_type: 'authorization_code',
      redirect_uri: redirectUri,
      code_verifier: codeVerifier,
    });
  }

  refresh(refreshToken: string): Promise<PlatformTokens> {
    return this.token('token refresh', { grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  private async token(step: string, grant: Record<string, string>): Promise<PlatformTokens> {
    const { spec } = this;
    const form = { [spec.clientIdParam]: spec.clientId, client_secret: spec.clientSecret, ...grant };
    const res = await callPlatform(spec.platform, step, spec.tokenUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...spec.tokenHeaders },
      body: new URLSearchParams(form).toString(),
    });
    const body = await readJson(res);
    const hasToken = res.ok && typeof body?.access_token === 'string' && body.access_token !== '';
    const hasError = typeof body?.error === 'string' && body.error !== '';
    if (!body || !hasToken || (spec.errorBesideToken && hasError)) {
      if (body?.error === 'invalid_grant') throw new GrantRejectedError(spec.platform, 'invalid_grant');
      // Google's reading covers TikTok's token errors too: both use the OAuth form `{error: 'x'}`.
      throw upstreamError(spec.platform, googleErrorCode(body, res.status), step);
    }
    const refreshExpiresIn = body[spec.refreshExpiresInField];
    const externalId = spec.externalIdField ? body[spec.externalIdField] : null;
    return {
      accessToken: body.access_token,
      refreshToken: typeof body.refresh_token === 'string' && body.refresh_token ? body.refresh_token : null,
      expiresIn: Number.isFinite(body.expires_in) ? Number(body.expires_in) : null,
      refreshExpiresIn: Number.isFinite(refreshExpiresIn) ? Number(refreshExpiresIn) : null,
      scope: typeof body.scope === 'string' ? body.scope : '',
      externalId: typeof externalId === 'string' ? externalId : null,
    };
  }
}
