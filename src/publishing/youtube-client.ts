// YouTube: Google OAuth 2.0 (authorization URL, token exchange and refresh) and the YouTube Data
// API v3 resumable upload (a session is opened with the metadata, then the bytes are PUT to its
// URI in one streamed request). Base URLs come from configuration, so a stand-in can play Google.
import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { Config } from '../config.js';
import type { PlatformTokens } from './platforms.js';
import { s256Base64Url } from './pkce.js';
import { GrantRejectedError, TRANSFER_TIMEOUT_MS, callPlatform, cleanCode, readJson, upstreamError } from './upstream.js';

export const YOUTUBE_SCOPE = 'https://www.googleapis.com/auth/youtube.upload';
export const YOUTUBE_PRIVACY = ['private', 'unlisted', 'public'] as const;
export type YouTubePrivacy = (typeof YOUTUBE_PRIVACY)[number];

export interface YouTubeUpload {
  accessToken: string;
  filePath: string;
  size: number;
  title: string;
  description: string;
  tags: string[];
  categoryId: string;
  privacyStatus: YouTubePrivacy;
}

/** Google's error body `{error: {errors: [{reason}], status}}`, or the OAuth form `{error: 'x'}`. */
function googleErrorCode(body: Record<string, any> | null, status: number): string {
  const err = body?.error;
  if (typeof err === 'string') return cleanCode(err, `http_${status}`);
  return cleanCode(err?.errors?.[0]?.reason ?? err?.status, `http_${status}`);
}

export class YouTubeClient {
  constructor(private readonly config: Config) {}

  authorizationUrl(input: { state: string; codeVerifier: string; redirectUri: string }): string {
    const url = new URL(this.config.YOUTUBE_AUTH_URL);
    url.searchParams.set('client_id', this.config.YOUTUBE_CLIENT_ID);
    url.searchParams.set('redirect_uri', input.redirectUri);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', YOUTUBE_SCOPE);
    url.searchParams.set('access_type', 'offline');
    url.searchParams.set('prompt', 'consent');
    url.searchParams.set('state', input.state);
    url.searchParams.set('code_challenge', s256Base64Url(input.codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
    return url.toString();
  }

  exchangeCode(code: string, codeVerifier: string, redirectUri: string): Promise<PlatformTokens> {
    return this.token('token exchange', {
      client_id: this.config.YOUTUBE_CLIENT_ID,
      client_secret: this.config.YOUTUBE_CLIENT_SECRET,
      code,
      grant_type: 'authorization_code',
      redirect_uri: redirectUri,
      code_verifier: codeVerifier,
    });
  }

  refresh(refreshToken: string): Promise<PlatformTokens> {
    return this.token('token refresh', {
      client_id: this.config.YOUTUBE_CLIENT_ID,
      client_secret: this.config.YOUTUBE_CLIENT_SECRET,
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
  }

  private async token(step: string, form: Record<string, string>): Promise<PlatformTokens> {
    const res = await callPlatform('youtube', step, this.config.YOUTUBE_TOKEN_URL, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    const body = await readJson(res);
    if (!res.ok || !body || typeof body.access_token !== 'string' || !body.access_token) {
      if (body?.error === 'invalid_grant') throw new GrantRejectedError('youtube', 'invalid_grant');
      throw upstreamError('youtube', googleErrorCode(body, res.status), step);
    }
    return {
      accessToken: body.access_token,
      refreshToken: typeof body.refresh_token === 'string' && body.refresh_token ? body.refresh_token : null,
      expiresIn: Number.isFinite(body.expires_in) ? Number(body.expires_in) : null,
      refreshExpiresIn: Number.isFinite(body.refresh_token_expires_in) ? Number(body.refresh_token_expires_in) : null,
      scope: typeof body.scope === 'string' ? body.scope : '',
      externalId: null,
    };
  }

  /** Opens a resumable session with the metadata, then streams the file to the session URI. */
  async uploadVideo(upload: YouTubeUpload): Promise<{ videoId: string; status: string }> {
    const base = this.config.YOUTUBE_API_BASE_URL.replace(/\/+$/, '');
    const init = await callPlatform('youtube', 'upload session', `${base}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${upload.accessToken}`,
        'Content-Type': 'application/json; charset=UTF-8',
        'X-Upload-Content-Length': String(upload.size),
        'X-Upload-Content-Type': 'video/mp4',
      },
      body: JSON.stringify({
        snippet: { title: upload.title, description: upload.description, tags: upload.tags, categoryId: upload.categoryId },
        status: { privacyStatus: upload.privacyStatus },
      }),
    });
    const sessionUri = init.headers.get('location');
    if (!init.ok || !sessionUri || !/^https?:\/\//.test(sessionUri)) {
      throw upstreamError('youtube', init.ok ? 'missing_session_uri' : googleErrorCode(await readJson(init), init.status), 'upload session');
    }
    await init.body?.cancel().catch(() => undefined);

    const stream = fs.createReadStream(upload.filePath);
    const res = await callPlatform('youtube', 'video transfer', sessionUri, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${upload.accessToken}`, 'Content-Type': 'video/mp4', 'Content-Length': String(upload.size) },
      body: Readable.toWeb(stream) as ReadableStream,
      duplex: 'half',
    }, TRANSFER_TIMEOUT_MS).finally(() => stream.destroy());
    const body = await readJson(res);
    if ((res.status !== 200 && res.status !== 201) || typeof body?.id !== 'string') {
      throw upstreamError('youtube', res.ok ? 'invalid_upload_response' : googleErrorCode(body, res.status), 'video transfer');
    }
    const status = typeof body.status?.uploadStatus === 'string' ? cleanCode(body.status.uploadStatus, 'uploaded') : 'uploaded';
    return { videoId: cleanCode(body.id, 'unknown'), status };
  }
}
