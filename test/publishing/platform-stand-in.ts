// A local stand-in for TikTok and Google/YouTube, following the request and response shapes their
// documentation gives for the endpoints the service calls:
// - TikTok Login Kit v2: GET /v2/auth/authorize/ (302 to redirect_uri with code and state),
//   POST /v2/oauth/token/ (authorization_code with PKCE, refresh_token);
// - TikTok Content Posting API: POST /v2/post/publish/video/init/, PUT <upload_url> with
//   Content-Range per chunk (206 until the last chunk, then 201), POST /v2/post/publish/status/fetch/;
// - Google OAuth 2.0: GET /o/oauth2/v2/auth, POST /token;
// - YouTube Data API v3 resumable upload: POST /upload/youtube/v3/videos?uploadType=resumable
//   (Location = session URI), PUT <session URI> with the bytes (200 + video resource).
// It checks client credentials, the PKCE verifier against the challenge (TikTok: hex SHA-256,
// Google: base64url SHA-256), bearer tokens and their expiry, scopes, Content-Range/Length, and
// records every byte it receives so tests can compare it with the original file.
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export const TIKTOK_CLIENT_KEY = 'standin-tiktok-key';
export const TIKTOK_CLIENT_SECRET = 'standin-tiktok-secret';
export const GOOGLE_CLIENT_ID = 'standin-google-client.apps.googleusercontent.com';
export const GOOGLE_CLIENT_SECRET = 'standin-google-secret';

type PlatformName = 'tiktok' | 'google';

interface IssuedCode {
  platform: PlatformName;
  challenge: string;
  redirectUri: string;
  scope: string;
  used: boolean;
}

interface AccessToken {
  platform: PlatformName;
  scope: string;
  openId: string;
  expired: boolean;
}

export interface ReceivedUpload {
  platform: PlatformName;
  /** TikTok publish_id or YouTube video id (once complete). */
  id: string;
  expectedSize: number;
  bytes: Buffer;
  complete: boolean;
  /** TikTok init body or YouTube metadata. */
  metadata: any;
  contentRanges: string[];
  /** Access token the bytes were sent with / the session was opened with. */
  accessToken: string;
}

/** An answer with this status and body, or (`drop`) the connection closed with no answer at all. */
export type InjectedFailure = { status: number; body: unknown } | { drop: true };

/** Named steps a test can make fail once. */
export type Step = 'tiktok.token' | 'tiktok.init' | 'tiktok.transfer' | 'tiktok.status' | 'google.token' | 'youtube.session' | 'youtube.transfer';

const MB = 1024 * 1024;
const hexChallenge = (v: string) => createHash('sha256').update(v, 'ascii').digest('hex');
const b64Challenge = (v: string) => createHash('sha256').update(v, 'ascii').digest('base64url');
const id = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`;

export class PlatformStandIn {
  url = '';
  readonly codes = new Map<string, IssuedCode>();
  readonly accessTokens = new Map<string, AccessToken>();
  readonly refreshTokens = new Map<string, { platform: PlatformName; scope: string; openId: string; revoked: boolean }>();
  /** Keyed by TikTok upload id / YouTube session id. */
  readonly uploads = new Map<string, ReceivedUpload>();
  readonly grants: { platform: PlatformName; grantType: string }[] = [];
  private readonly failures = new Map<Step, InjectedFailure>();
  private server: http.Server | null = null;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'stand_in_crash', message: String(err) }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** The service's environment pointing every platform URL here. */
  env(): Record<string, string> {
    return {
      TIKTOK_CLIENT_KEY,
      TIKTOK_CLIENT_SECRET,
      TIKTOK_AUTH_URL: `${this.url}/v2/auth/authorize/`,
      TIKTOK_API_BASE_URL: this.url,
      YOUTUBE_CLIENT_ID: GOOGLE_CLIENT_ID,
      YOUTUBE_CLIENT_SECRET: GOOGLE_CLIENT_SECRET,
      YOUTUBE_AUTH_URL: `${this.url}/o/oauth2/v2/auth`,
      YOUTUBE_TOKEN_URL: `${this.url}/token`,
      YOUTUBE_API_BASE_URL: this.url,
    };
  }

  failNext(step: Step, failure: InjectedFailure): void {
    this.failures.set(step, failure);
  }

  /** Every access token issued so far stops working (as if its lifetime ran out). */
  expireAccessTokens(): void {
    for (const token of this.accessTokens.values()) token.expired = true;
  }

  /** The user (or the platform) revoked the grant: refresh tokens stop working. */
  revokeRefreshTokens(): void {
    for (const token of this.refreshTokens.values()) token.revoked = true;
  }

  /** Plays the user's browser: opens the authorization URL and returns where the platform redirects. */
  async consent(authorizationUrl: string): Promise<URL> {
    const res = await fetch(authorizationUrl, { redirect: 'manual' });
    if (res.status !== 302) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
    return new URL(res.headers.get('location')!);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const body = await readBody(req);
    const route = `${req.method} ${url.pathname}`;
    switch (route) {
      case 'GET /v2/auth/authorize/':
        return this.authorize('tiktok', url, res);
      case 'GET /o/oauth2/v2/auth':
        return this.authorize('google', url, res);
      case 'POST /v2/oauth/token/':
        return this.tiktokToken(req, body, res);
      case 'POST /token':
        return this.googleToken(req, body, res);
      case 'POST /v2/post/publish/video/init/':
        return this.tiktokInit(req, body, res);
      case 'POST /v2/post/publish/status/fetch/':
        return this.tiktokStatus(req, body, res);
      case 'POST /upload/youtube/v3/videos':
        return this.youtubeSession(req, url, body, res);
      case 'PUT /upload/youtube/v3/videos':
        return this.youtubeTransfer(req, url, body, res);
    }
    if (req.method === 'PUT' && url.pathname.startsWith('/tiktok-upload/')) return this.tiktokTransfer(req, url, body, res);
    json(res, 404, { error: 'not_found' });
  }

  private injected(step: Step, res: http.ServerResponse): boolean {
    const failure = this.failures.get(step);
    if (!failure) return false;
    this.failures.delete(step);
    if ('drop' in failure) res.socket?.destroy();
    else json(res, failure.status, failure.body);
    return true;
  }

  // ---- OAuth ----

  private authorize(platform: PlatformName, url: URL, res: http.ServerResponse): void {
    const q = url.searchParams;
    const clientOk = platform === 'tiktok' ? q.get('client_key') === TIKTOK_CLIENT_KEY : q.get('client_id') === GOOGLE_CLIENT_ID;
    const redirectUri = q.get('redirect_uri') ?? '';
    const scope = q.get('scope') ?? '';
    const problems: string[] = [];
    if (!clientOk) problems.push('client');
    if (q.get('response_type') !== 'code') problems.push('response_type');
    if (!/^https?:\/\//.test(redirectUri)) problems.push('redirect_uri');
    if (!q.get('state')) problems.push('state');
    if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) problems.push('code_challenge');
    if (platform === 'tiktok' && !['user.info.basic', 'video.publish', 'video.upload'].every((s) => scope.split(',').includes(s))) problems.push('scope');
    if (platform === 'google' && scope !== 'https://www.googleapis.com/auth/youtube.upload') problems.push('scope');
    if (platform === 'google' && (q.get('access_type') !== 'offline' || q.get('prompt') !== 'consent')) problems.push('offline');
    if (problems.length) return json(res, 400, { error: 'invalid_request', error_description: problems.join(',') });
    const code = id(platform === 'tiktok' ? 'ttcode_' : '4/gcode_');
    this.codes.set(code, { platform, challenge: q.get('code_challenge')!, redirectUri, scope, used: false });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    if (platform === 'tiktok') back.searchParams.set('scopes', scope);
    else back.searchParams.set('scope', scope);
    back.searchParams.set('state', q.get('state')!);
    res.writeHead(302, { location: back.toString() });
    res.end();
  }

  private issueTokens(platform: PlatformName, scope: string, openId: string, withRefresh: boolean) {
    const access = id(platform === 'tiktok' ? 'act.' : 'ya29.');
    this.accessTokens.set(access, { platform, scope, openId, expired: false });
    const refresh = withRefresh ? id(platform === 'tiktok' ? 'rft.' : '1//') : null;
    if (refresh) this.refreshTokens.set(refresh, { platform, scope, openId, revoked: false });
    return { access, refresh };
  }

  private tiktokToken(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): void {
    if (this.injected('tiktok.token', res)) return;
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
      return json(res, 400, { error: 'invalid_request', error_description: 'form body expected', log_id: 'x' });
    const f = new URLSearchParams(body.toString('utf8'));
    this.grants.push({ platform: 'tiktok', grantType: f.get('grant_type') ?? '' });
    if (f.get('client_key') !== TIKTOK_CLIENT_KEY || f.get('client_secret') !== TIKTOK_CLIENT_SECRET) {
      return json(res, 401, { error: 'invalid_client', error_description: 'Client key or secret is incorrect.', log_id: 'x' });
    }
    if (f.get('grant_type') === 'authorization_code') {
      const code = this.codes.get(f.get('code') ?? '');
      if (!code || code.platform !== 'tiktok' || code.used)
        return json(res, 400, { error: 'invalid_grant', error_description: 'Authorization code is expired.', log_id: 'x' });
      if (code.redirectUri !== f.get('redirect_uri'))
        return json(res, 400, { error: 'invalid_request', error_description: 'redirect_uri mismatch', log_id: 'x' });
      if (hexChallenge(f.get('code_verifier') ?? '') !== code.challenge) {
        return json(res, 400, { error: 'invalid_request', error_description: 'Code verifier or code challenge is invalid.', log_id: 'x' });
      }
      code.used = true;
      const openId = id('open_');
      const t = this.issueTokens('tiktok', code.scope, openId, true);
      return json(res, 200, {
        access_token: t.access,
        expires_in: 86400,
        open_id: openId,
        refresh_expires_in: 31536000,
        refresh_token: t.refresh,
        scope: code.scope,
        token_type: 'Bearer',
      });
    }
    if (f.get('grant_type') === 'refresh_token') {
      const old = this.refreshTokens.get(f.get('refresh_token') ?? '');
      if (!old || old.platform !== 'tiktok' || old.revoked)
        return json(res, 400, { error: 'invalid_grant', error_description: 'Refresh token is invalid or expired.', log_id: 'x' });
      old.revoked = true; // TikTok may rotate the refresh token
      const t = this.issueTokens('tiktok', old.scope, old.openId, true);
      return json(res, 200, {
        access_token: t.access,
        expires_in: 86400,
        open_id: old.openId,
        refresh_expires_in: 31536000,
        refresh_token: t.refresh,
        scope: old.scope,
        token_type: 'Bearer',
      });
    }
    json(res, 400, { error: 'unsupported_grant_type', error_description: 'grant_type', log_id: 'x' });
  }

  private googleToken(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): void {
    if (this.injected('google.token', res)) return;
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
      return json(res, 400, { error: 'invalid_request', error_description: 'form body expected' });
    const f = new URLSearchParams(body.toString('utf8'));
    this.grants.push({ platform: 'google', grantType: f.get('grant_type') ?? '' });
    if (f.get('client_id') !== GOOGLE_CLIENT_ID || f.get('client_secret') !== GOOGLE_CLIENT_SECRET) {
      return json(res, 401, { error: 'invalid_client', error_description: 'Unauthorized' });
    }
    if (f.get('grant_type') === 'authorization_code') {
      const code = this.codes.get(f.get('code') ?? '');
      if (!code || code.platform !== 'google' || code.used) return json(res, 400, { error: 'invalid_grant', error_description: 'Bad Request' });
      if (code.redirectUri !== f.get('redirect_uri')) return json(res, 400, { error: 'redirect_uri_mismatch', error_description: 'Bad Request' });
      if (b64Challenge(f.get('code_verifier') ?? '') !== code.challenge)
        return json(res, 400, { error: 'invalid_grant', error_description: 'Invalid code verifier.' });
      code.used = true;
      const t = this.issueTokens('google', code.scope, '', true);
      return json(res, 200, { access_token: t.access, expires_in: 3599, refresh_token: t.refresh, scope: code.scope, token_type: 'Bearer' });
    }
    if (f.get('grant_type') === 'refresh_token') {
      const old = this.refreshTokens.get(f.get('refresh_token') ?? '');
      if (!old || old.platform !== 'google' || old.revoked)
        return json(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
      // Google keeps the refresh token and sends none back.
      const t = this.issueTokens('google', old.scope, '', false);
      return json(res, 200, { access_token: t.access, expires_in: 3599, scope: old.scope, token_type: 'Bearer' });
    }
    json(res, 400, { error: 'unsupported_grant_type' });
  }

  private bearer(req: http.IncomingMessage, platform: PlatformName): { token: string; grant: AccessToken } | null {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const grant = this.accessTokens.get(token);
    if (!grant || grant.platform !== platform || grant.expired) return null;
    return { token, grant };
  }

  // ---- TikTok Content Posting API ----

  private tiktokError(res: http.ServerResponse, status: number, code: string, message: string): void {
    json(res, status, { error: { code, message, log_id: id('log') } });
  }

  private tiktokInit(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): void {
    const auth = this.bearer(req, 'tiktok');
    if (!auth) return this.tiktokError(res, 401, 'access_token_invalid', 'The access token is invalid or not found in the request.');
    if (!auth.grant.scope.split(',').includes('video.publish')) return this.tiktokError(res, 401, 'scope_not_authorized', 'video.publish not granted');
    if (this.injected('tiktok.init', res)) return;
    if (!String(req.headers['content-type']).startsWith('application/json')) return this.tiktokError(res, 400, 'invalid_params', 'JSON body expected');
    const payload = JSON.parse(body.toString('utf8'));
    const si = payload?.source_info ?? {};
    const pi = payload?.post_info ?? {};
    const size = si.video_size;
    const chunk = si.chunk_size;
    const count = si.total_chunk_count;
    const chunkOk =
      Number.isInteger(size) &&
      size > 0 &&
      Number.isInteger(chunk) &&
      Number.isInteger(count) &&
      (size < 5 * MB
        ? chunk === size && count === 1
        : (chunk === size && size <= 64 * MB && count === 1) ||
          (chunk >= 5 * MB && chunk <= 64 * MB && count === Math.floor(size / chunk) && size - (count - 1) * chunk <= 128 * MB)) &&
      count <= 1000;
    const privacy = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'];
    if (si.source !== 'FILE_UPLOAD' || !chunkOk || typeof pi.title !== 'string' || pi.title.length > 2200 || !privacy.includes(pi.privacy_level)) {
      return this.tiktokError(res, 400, 'invalid_params', 'Invalid post_info or source_info');
    }
    const publishId = `v_pub_file~v2-1.${randomBytes(8).toString('hex')}`;
    const uploadId = randomBytes(8).toString('hex');
    this.uploads.set(uploadId, {
      platform: 'tiktok',
      id: publishId,
      expectedSize: size,
      bytes: Buffer.alloc(0),
      complete: false,
      metadata: payload,
      contentRanges: [],
      accessToken: auth.token,
    });
    json(res, 200, {
      data: { publish_id: publishId, upload_url: `${this.url}/tiktok-upload/${uploadId}?upload_token=${randomBytes(6).toString('hex')}` },
      error: { code: 'ok', message: '', log_id: id('log') },
    });
  }

  private tiktokTransfer(req: http.IncomingMessage, url: URL, body: Buffer, res: http.ServerResponse): void {
    if (this.injected('tiktok.transfer', res)) return;
    const upload = this.uploads.get(url.pathname.slice('/tiktok-upload/'.length));
    if (!upload || upload.platform !== 'tiktok' || !url.searchParams.get('upload_token'))
      return this.tiktokError(res, 404, 'upload_not_found', 'Unknown upload URL');
    if (req.headers['content-type'] !== 'video/mp4') return this.tiktokError(res, 400, 'invalid_params', 'Content-Type must be a video type');
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(req.headers['content-range'] ?? ''));
    if (!range) return this.tiktokError(res, 400, 'invalid_params', 'Content-Range missing or malformed');
    const [first, last, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
    if (
      total !== upload.expectedSize ||
      first !== upload.bytes.length ||
      last - first + 1 !== body.length ||
      Number(req.headers['content-length']) !== body.length
    ) {
      return this.tiktokError(res, 416, 'invalid_range', 'Content-Range does not match the bytes or the init');
    }
    upload.contentRanges.push(String(req.headers['content-range']));
    upload.bytes = Buffer.concat([upload.bytes, body]);
    upload.complete = upload.bytes.length === upload.expectedSize;
    res.writeHead(upload.complete ? 201 : 206);
    res.end();
  }

  private tiktokStatus(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): void {
    if (!this.bearer(req, 'tiktok')) return this.tiktokError(res, 401, 'access_token_invalid', 'The access token is invalid or not found in the request.');
    if (this.injected('tiktok.status', res)) return;
    const publishId = JSON.parse(body.toString('utf8') || '{}').publish_id;
    const upload = [...this.uploads.values()].find((u) => u.id === publishId);
    if (!upload) return this.tiktokError(res, 400, 'invalid_publish_id', 'Unknown publish_id');
    json(res, 200, {
      data: {
        status: upload.complete ? 'PUBLISH_COMPLETE' : 'PROCESSING_UPLOAD',
        uploaded_bytes: upload.bytes.length,
        fail_reason: '',
        publicaly_available_post_id: [],
      },
      error: { code: 'ok', message: '', log_id: id('log') },
    });
  }

  // ---- YouTube resumable upload ----

  private googleError(res: http.ServerResponse, status: number, reason: string, message: string, statusWord: string): void {
    json(res, status, { error: { code: status, message, errors: [{ message, domain: 'youtube.video', reason }], status: statusWord } });
  }

  private youtubeSession(req: http.IncomingMessage, url: URL, body: Buffer, res: http.ServerResponse): void {
    if (url.searchParams.get('uploadType') !== 'resumable' || url.searchParams.get('part') !== 'snippet,status') {
      return this.googleError(res, 400, 'invalidParameter', 'uploadType=resumable and part=snippet,status expected', 'INVALID_ARGUMENT');
    }
    const auth = this.bearer(req, 'google');
    if (!auth) return this.googleError(res, 401, 'authError', 'Request had invalid authentication credentials.', 'UNAUTHENTICATED');
    if (this.injected('youtube.session', res)) return;
    const size = Number(req.headers['x-upload-content-length']);
    const metadata = JSON.parse(body.toString('utf8') || '{}');
    if (!Number.isInteger(size) || size <= 0 || !String(req.headers['x-upload-content-type']).startsWith('video/')) {
      return this.googleError(res, 400, 'invalidParameter', 'X-Upload-Content-Length and X-Upload-Content-Type expected', 'INVALID_ARGUMENT');
    }
    const title = metadata?.snippet?.title;
    if (typeof title !== 'string' || !title || title.length > 100 || /[<>]/.test(title))
      return this.googleError(res, 400, 'invalidTitle', 'The request metadata specifies an invalid video title.', 'INVALID_ARGUMENT');
    if (!['private', 'unlisted', 'public'].includes(metadata?.status?.privacyStatus))
      return this.googleError(res, 400, 'invalidVideoMetadata', 'privacyStatus', 'INVALID_ARGUMENT');
    const sessionId = randomBytes(10).toString('hex');
    this.uploads.set(sessionId, {
      platform: 'google',
      id: '',
      expectedSize: size,
      bytes: Buffer.alloc(0),
      complete: false,
      metadata,
      contentRanges: [],
      accessToken: auth.token,
    });
    res.writeHead(200, { location: `${this.url}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status&upload_id=${sessionId}` });
    res.end();
  }

  private youtubeTransfer(req: http.IncomingMessage, url: URL, body: Buffer, res: http.ServerResponse): void {
    const upload = this.uploads.get(url.searchParams.get('upload_id') ?? '');
    if (!upload || upload.platform !== 'google') return this.googleError(res, 404, 'notFound', 'Unknown upload session', 'NOT_FOUND');
    if (this.injected('youtube.transfer', res)) return;
    if (Number(req.headers['content-length']) !== body.length || body.length !== upload.expectedSize) {
      return this.googleError(res, 400, 'badContent', 'The bytes do not match X-Upload-Content-Length', 'INVALID_ARGUMENT');
    }
    upload.bytes = body;
    upload.complete = true;
    upload.id = randomBytes(9).toString('base64url').slice(0, 11);
    json(res, 200, {
      kind: 'youtube#video',
      etag: randomBytes(8).toString('hex'),
      id: upload.id,
      snippet: { ...upload.metadata.snippet, channelId: 'UCstandin', publishedAt: new Date().toISOString() },
      status: { uploadStatus: 'uploaded', privacyStatus: upload.metadata.status.privacyStatus },
    });
  }
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify(body));
}
