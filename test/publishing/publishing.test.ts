// Social publishing over the real server, with a local stand-in playing TikTok and Google/YouTube.
// Completing a link (callback, POST /{platform}/link) is tested in linking.test.ts.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwtVerify } from 'jose';
import { sql } from 'drizzle-orm';
import { bootServer, type TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { decodeMasterKey, deriveKeys } from '../../src/publishing/secret-keys.js';
import { TokenCipher } from '../../src/shared/token-cipher.js';
import { GOOGLE_CLIENT_ID, PlatformStandIn, TIKTOK_CLIENT_KEY } from './platform-stand-in.js';
import { createContent, linkAccount, rows } from './fixtures.js';

const MASTER_KEY = '7f'.repeat(32);
const keys = deriveKeys(decodeMasterKey(MASTER_KEY));
const base = '/content/api/v1';

let standIn: PlatformStandIn;
let server: TestServer;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  standIn = await new PlatformStandIn().start();
  server = await bootServer({ ...standIn.env(), PUBLISHING_SECRET_KEY: MASTER_KEY });
  [alice, bob] = await Promise.all([registerAndLogin(server), registerAndLogin(server)]);
});
afterAll(async () => {
  await server?.close();
  await standIn?.stop();
});

const withUserId = (user: TestUser) => ({ headers: { 'x-user-id': user.userId } });
const callbackUrl = (platform: string) => `${server.service.config.publicBaseUrl}${base}/${platform}/callback`;

describe('GET /tiktok/auth and /youtube/auth', () => {
  it('needs a bearer token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).get(`${base}/tiktok/auth`), 401, 'auth.error');
    expectErrorEnvelope(await new ApiClient(server.url).get(`${base}/youtube/auth`), 401, 'auth.error');
  });

  it('gives the TikTok Login Kit URL with every parameter, a hex S256 PKCE challenge and a signed state', async () => {
    const res = await alice.api.get(`${base}/tiktok/auth`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const url = new URL(res.body.data.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${standIn.url}/v2/auth/authorize/`);
    const q = url.searchParams;
    expect(q.get('client_key')).toBe(TIKTOK_CLIENT_KEY);
    expect(q.get('scope')).toBe('user.info.basic,video.publish,video.upload');
    expect(q.get('response_type')).toBe('code');
    expect(q.get('redirect_uri')).toBe(callbackUrl('tiktok'));
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[0-9a-f]{64}$/);

    const { payload } = await jwtVerify(q.get('state')!, keys.stateSigningKey, { audience: 'social-oauth', issuer: 'real-estate-video-service' });
    expect(payload.sub).toBe(alice.userId);
    expect(payload.plat).toBe('tiktok');
    expect(payload.exp! - payload.iat!).toBe(600);

    // The verifier stays on the server, sealed, and is the one the challenge was made from.
    const [row] = await rows<{ code_verifier_enc: string; user_id: string }>(server, sql`select code_verifier_enc, user_id from social_oauth_states where id = ${payload.jti!}::uuid`);
    expect(row.user_id).toBe(alice.userId);
    const verifier = new TokenCipher(keys.tokenEncryptionKey).open(row.code_verifier_enc, `oauth-state:${payload.jti}:code_verifier`);
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(row.code_verifier_enc).not.toContain(verifier);
    expect(createHash('sha256').update(verifier).digest('hex')).toBe(q.get('code_challenge'));
  });

  it('gives the Google OAuth URL with offline access, consent prompt, a base64url S256 challenge and a signed state', async () => {
    const res = await alice.api.get(`${base}/youtube/auth`);
    expect(res.status).toBe(200);
    const url = new URL(res.body.data.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${standIn.url}/o/oauth2/v2/auth`);
    const q = url.searchParams;
    expect(q.get('client_id')).toBe(GOOGLE_CLIENT_ID);
    expect(q.get('redirect_uri')).toBe(callbackUrl('youtube'));
    expect(q.get('response_type')).toBe('code');
    expect(q.get('scope')).toBe('https://www.googleapis.com/auth/youtube.upload');
    expect(q.get('access_type')).toBe('offline');
    expect(q.get('prompt')).toBe('consent');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { payload } = await jwtVerify(q.get('state')!, keys.stateSigningKey, { audience: 'social-oauth' });
    expect(payload.sub).toBe(alice.userId);
    expect(payload.plat).toBe('youtube');
  });

  it('makes a fresh state and challenge each time', async () => {
    const [a, b] = await Promise.all([alice.api.get(`${base}/tiktok/auth`), alice.api.get(`${base}/tiktok/auth`)]);
    const qa = new URL(a.body.data.url).searchParams;
    const qb = new URL(b.body.data.url).searchParams;
    expect(qa.get('state')).not.toBe(qb.get('state'));
    expect(qa.get('code_challenge')).not.toBe(qb.get('code_challenge'));
  });
});

describe('POST /tiktok/upload and /youtube/upload: refusals', () => {
  it('needs a token, then the x-user-id header (400 missing, 401 other user)', async () => {
    const content = await createContent(server, alice);
    const body = { id: content.id, title: 'Tour', description: 'd', tags: [] };
    for (const platform of ['tiktok', 'youtube']) {
      expectErrorEnvelope(await new ApiClient(server.url).post(`${base}/${platform}/upload`, body, withUserId(alice)), 401, 'auth.error');
      expect(expectErrorEnvelope(await alice.api.post(`${base}/${platform}/upload`, body), 400).details?.field).toBe('x-user-id');
      expectErrorEnvelope(await alice.api.post(`${base}/${platform}/upload`, body, withUserId(bob)), 401, 'auth.error.user_mismatch');
      expectErrorEnvelope(await alice.api.post(`${base}/${platform}/upload`, body, { headers: { 'x-user-id': 'nobody' } }), 401, 'auth.error.user_mismatch');
    }
  });

  it('validates the body (400)', async () => {
    const content = await createContent(server, alice);
    const post = (platform: string, body: unknown) => alice.api.post(`${base}/${platform}/upload`, body, withUserId(alice));
    const ok = { id: content.id, title: 'Tour', description: 'd', tags: ['a'] };
    for (const platform of ['tiktok', 'youtube']) {
      expect(expectErrorEnvelope(await post(platform, { ...ok, id: 'not-a-uuid' }), 400).details?.field).toBe('id');
      expect(expectErrorEnvelope(await post(platform, { ...ok, title: undefined }), 400).details?.field).toBe('title');
      expect(expectErrorEnvelope(await post(platform, { ...ok, title: '' }), 400).details?.field).toBe('title');
      expect(expectErrorEnvelope(await post(platform, { ...ok, tags: 'a,b' }), 400).details?.field).toBe('tags');
      expect(expectErrorEnvelope(await post(platform, { ...ok, tags: [1] }), 400).details?.field).toBe('tags.0');
      expect(expectErrorEnvelope(await post(platform, { ...ok, tags: Array.from({ length: 31 }, (_, i) => `t${i}`) }), 400).details?.field).toBe('tags');
      expectErrorEnvelope(await alice.api.request('POST', `${base}/${platform}/upload`, { rawBody: '{"id":', headers: { 'content-type': 'application/json', 'x-user-id': alice.userId } }), 400);
    }
    expect(expectErrorEnvelope(await post('youtube', { ...ok, title: 'x'.repeat(101) }), 400).details?.field).toBe('title');
    expect(expectErrorEnvelope(await post('youtube', { ...ok, title: 'a <b> c' }), 400).details?.field).toBe('title');
    expect(expectErrorEnvelope(await post('youtube', { ...ok, privacy_status: 'secret' }), 400).details?.field).toBe('privacy_status');
    expect(expectErrorEnvelope(await post('tiktok', { ...ok, privacy_level: 'EVERYONE' }), 400).details?.field).toBe('privacy_level');
  });

  it('refuses unknown (404), other users\' (403) and unfinished (409) content', async () => {
    const post = (platform: string, id: string) => alice.api.post(`${base}/${platform}/upload`, { id, title: 'Tour', tags: [] }, withUserId(alice));
    const bobs = await createContent(server, bob);
    const processing = await createContent(server, alice, { status: 'processing' });
    const failed = await createContent(server, alice, { status: 'failed' });
    const noFile = await createContent(server, alice, { withFile: false });
    const deleted = await createContent(server, alice);
    await rows(server, sql`update contents set deleted_at = now() where id = ${deleted.id}::uuid`);
    for (const platform of ['tiktok', 'youtube']) {
      expectErrorEnvelope(await post(platform, '0b0f7e0c-8a4e-4c1e-9d7e-2f1a3b4c5d6e'), 404);
      expectErrorEnvelope(await post(platform, deleted.id), 404);
      expectErrorEnvelope(await post(platform, bobs.id), 403, 'publishing.error.not_owner');
      expectErrorEnvelope(await post(platform, processing.id), 409, 'publishing.error.content_not_ready');
      expectErrorEnvelope(await post(platform, failed.id), 409, 'publishing.error.content_not_ready');
      expectErrorEnvelope(await post(platform, noFile.id), 409, 'publishing.error.content_not_ready');
    }
  });

  it('answers 409 account_not_linked for a user who never linked the platform', async () => {
    const carol = await registerAndLogin(server);
    const content = await createContent(server, carol);
    for (const platform of ['tiktok', 'youtube']) {
      const res = await carol.api.post(`${base}/${platform}/upload`, { id: content.id, title: 'Tour', tags: [] }, withUserId(carol));
      expect(expectErrorEnvelope(res, 409, 'publishing.error.account_not_linked').message).toContain(`/${platform}/auth`);
    }
  });
});

describe('POST /tiktok/upload and /youtube/upload: publishing', () => {
  it('publishes to TikTok: init with the file size, the bytes with Content-Range, status fetched and recorded', async () => {
    await linkAccount(server, standIn, alice, 'tiktok');
    const content = await createContent(server, alice, { size: 700 * 1024 + 7 });
    const res = await alice.api.post(`${base}/tiktok/upload`, { id: content.id, title: 'Sunny 2BR in District 2', description: 'River view, pool', tags: ['realestate', 'hcmc'] }, withUserId(alice));
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const { publish_id, status, publication_id } = res.body.data;
    expect(publish_id).toMatch(/^v_pub_file~/);
    expect(status).toBe('PUBLISH_COMPLETE');

    const upload = [...standIn.uploads.values()].find((u) => u.id === publish_id)!;
    expect(upload.complete).toBe(true);
    expect(upload.bytes.equals(content.bytes)).toBe(true);
    expect(upload.contentRanges).toEqual([`bytes 0-${content.bytes.length - 1}/${content.bytes.length}`]);
    expect(upload.metadata.source_info).toEqual({ source: 'FILE_UPLOAD', video_size: content.bytes.length, chunk_size: content.bytes.length, total_chunk_count: 1 });
    expect(upload.metadata.post_info.title).toBe('Sunny 2BR in District 2\nRiver view, pool\n#realestate #hcmc');
    expect(upload.metadata.post_info.privacy_level).toBe('SELF_ONLY');

    const [row] = await rows(server, sql`select * from social_publications where id = ${publication_id}::uuid`);
    expect(row).toMatchObject({ user_id: alice.userId, content_id: content.id, platform: 'tiktok', remote_id: publish_id, status: 'PUBLISH_COMPLETE', error: null });
  });

  it('publishes a large video to TikTok in chunks (TikTok\'s chunk rules)', async () => {
    await linkAccount(server, standIn, alice, 'tiktok');
    const content = await createContent(server, alice, { size: 70 * 1024 * 1024 + 12345 });
    const res = await alice.api.post(`${base}/tiktok/upload`, { id: content.id, title: 'Big tour', privacy_level: 'PUBLIC_TO_EVERYONE' }, withUserId(alice));
    expect(res.status).toBe(200);
    const upload = [...standIn.uploads.values()].find((u) => u.id === res.body.data.publish_id)!;
    const size = content.bytes.length;
    const chunk = 10 * 1024 * 1024;
    expect(upload.metadata.source_info).toEqual({ source: 'FILE_UPLOAD', video_size: size, chunk_size: chunk, total_chunk_count: 7 });
    expect(upload.contentRanges).toHaveLength(7);
    expect(upload.contentRanges[6]).toBe(`bytes ${6 * chunk}-${size - 1}/${size}`);
    expect(createHash('sha256').update(upload.bytes).digest('hex')).toBe(createHash('sha256').update(content.bytes).digest('hex'));
    upload.bytes = Buffer.alloc(0); // free the memory
  });

  it('publishes to YouTube: resumable session with the metadata, then the bytes; answers the watch URL', async () => {
    await linkAccount(server, standIn, alice, 'youtube');
    const content = await createContent(server, alice, { size: 333 * 1024 + 1 });
    const res = await alice.api.post(`${base}/youtube/upload`, { id: content.id, title: 'Sunny 2BR', description: 'River view', tags: ['real estate', 'hcmc'], privacy_status: 'unlisted' }, withUserId(alice));
    expect(res.status).toBe(200);
    const { video_id, url, status, publication_id } = res.body.data;
    expect(video_id).toMatch(/^[A-Za-z0-9_-]{11}$/);
    expect(url).toBe(`https://www.youtube.com/watch?v=${video_id}`);
    expect(status).toBe('uploaded');
    const upload = [...standIn.uploads.values()].find((u) => u.id === video_id)!;
    expect(upload.bytes.equals(content.bytes)).toBe(true);
    expect(upload.metadata).toEqual({ snippet: { title: 'Sunny 2BR', description: 'River view', tags: ['real estate', 'hcmc'], categoryId: '22' }, status: { privacyStatus: 'unlisted' } });
    const [row] = await rows(server, sql`select * from social_publications where id = ${publication_id}::uuid`);
    expect(row).toMatchObject({ platform: 'youtube', remote_id: video_id, status: 'uploaded' });
  });

  it('defaults YouTube privacy to private', async () => {
    await linkAccount(server, standIn, alice, 'youtube');
    const content = await createContent(server, alice);
    const res = await alice.api.post(`${base}/youtube/upload`, { id: content.id, title: 'Quiet tour' }, withUserId(alice));
    expect(res.status).toBe(200);
    expect([...standIn.uploads.values()].find((u) => u.id === res.body.data.video_id)!.metadata.status.privacyStatus).toBe('private');
  });

  for (const platform of ['tiktok', 'youtube'] as const) {
    it(`refreshes an expired ${platform} access token before uploading`, async () => {
      const dave = await registerAndLogin(server);
      await linkAccount(server, standIn, dave, platform);
      const content = await createContent(server, dave);
      const [before] = await rows<{ access_token_enc: string; refresh_token_enc: string }>(server, sql`select access_token_enc, refresh_token_enc from social_accounts where user_id = ${dave.userId}::uuid`);
      standIn.expireAccessTokens();
      await rows(server, sql`update social_accounts set access_expires_at = now() - interval '1 minute' where user_id = ${dave.userId}::uuid`);
      const refreshesBefore = standIn.grants.filter((g) => g.grantType === 'refresh_token').length;

      const res = await dave.api.post(`${base}/${platform}/upload`, { id: content.id, title: 'Refreshed', tags: [] }, withUserId(dave));
      expect(res.status).toBe(200);
      expect(standIn.grants.filter((g) => g.grantType === 'refresh_token').length).toBe(refreshesBefore + 1);
      const remoteId = platform === 'tiktok' ? res.body.data.publish_id : res.body.data.video_id;
      const upload = [...standIn.uploads.values()].find((u) => u.id === remoteId)!;
      expect(standIn.accessTokens.get(upload.accessToken)?.expired).toBe(false);
      expect(upload.bytes.equals(content.bytes)).toBe(true);

      const [after] = await rows<{ access_token_enc: string; refresh_token_enc: string; access_expires_at: Date }>(server, sql`select access_token_enc, refresh_token_enc, access_expires_at from social_accounts where user_id = ${dave.userId}::uuid`);
      expect(after.access_token_enc).not.toBe(before.access_token_enc);
      expect(new Date(after.access_expires_at).getTime()).toBeGreaterThan(Date.now());
      // Google sends no new refresh token: the old one is kept; TikTok rotates it.
      if (platform === 'youtube') expect(after.refresh_token_enc).toBe(before.refresh_token_enc);
      else expect(after.refresh_token_enc).not.toBe(before.refresh_token_enc);
      expect(JSON.stringify(after)).not.toContain(upload.accessToken);
    });
  }

  it('refreshes once when two uploads find the same expired TikTok token (TikTok rotates refresh tokens)', async () => {
    const ivan = await registerAndLogin(server);
    await linkAccount(server, standIn, ivan, 'tiktok');
    const [one, two] = await Promise.all([createContent(server, ivan), createContent(server, ivan)]);
    standIn.expireAccessTokens();
    await rows(server, sql`update social_accounts set access_expires_at = now() - interval '1 minute' where user_id = ${ivan.userId}::uuid`);
    const refreshesBefore = standIn.grants.filter((g) => g.platform === 'tiktok' && g.grantType === 'refresh_token').length;
    const results = await Promise.all([one, two].map((c) => ivan.api.post(`${base}/tiktok/upload`, { id: c.id, title: 'Twice' }, withUserId(ivan))));
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(standIn.grants.filter((g) => g.platform === 'tiktok' && g.grantType === 'refresh_token').length).toBe(refreshesBefore + 1);
  });

  it('answers 409 account_link_expired and forgets the link when the refresh token was revoked', async () => {
    const erin = await registerAndLogin(server);
    await linkAccount(server, standIn, erin, 'youtube');
    const content = await createContent(server, erin);
    standIn.revokeRefreshTokens();
    await rows(server, sql`update social_accounts set access_expires_at = now() - interval '1 minute' where user_id = ${erin.userId}::uuid`);
    const res = await erin.api.post(`${base}/youtube/upload`, { id: content.id, title: 'Tour' }, withUserId(erin));
    expectErrorEnvelope(res, 409, 'publishing.error.account_link_expired');
    expect(await rows(server, sql`select 1 from social_accounts where user_id = ${erin.userId}::uuid`)).toHaveLength(0);
  });

  it('answers 502 with the platform error code (never a token) when the platform fails, and records the failure', async () => {
    const frank = await registerAndLogin(server);
    await linkAccount(server, standIn, frank, 'tiktok');
    await linkAccount(server, standIn, frank, 'youtube');
    const content = await createContent(server, frank);
    const post = (platform: string) => frank.api.post(`${base}/${platform}/upload`, { id: content.id, title: 'Tour' }, withUserId(frank));
    const tokens = () => [...standIn.accessTokens.keys(), ...standIn.refreshTokens.keys()];

    standIn.failNext('tiktok.init', { status: 429, body: { error: { code: 'spam_risk_too_many_posts', message: 'too many posts', log_id: 'l' } } });
    let body = expectErrorEnvelope(await post('tiktok'), 502, 'publishing.error.upstream');
    expect(body.message).toContain('spam_risk_too_many_posts');
    for (const t of tokens()) expect(body.message).not.toContain(t);

    standIn.failNext('tiktok.transfer', { status: 500, body: { error: { code: 'internal_error', message: 'x', log_id: 'l' } } });
    body = expectErrorEnvelope(await post('tiktok'), 502, 'publishing.error.upstream');
    expect(body.message).toContain('internal_error');

    standIn.failNext('youtube.session', { status: 403, body: { error: { code: 403, message: 'quota', errors: [{ reason: 'quotaExceeded', domain: 'youtube.quota', message: 'quota' }], status: 'PERMISSION_DENIED' } } });
    body = expectErrorEnvelope(await post('youtube'), 502, 'publishing.error.upstream');
    expect(body.message).toContain('quotaExceeded');

    standIn.failNext('youtube.transfer', { status: 503, body: { error: { code: 503, message: 'backend', errors: [{ reason: 'backendError' }], status: 'UNAVAILABLE' } } });
    body = expectErrorEnvelope(await post('youtube'), 502, 'publishing.error.upstream');
    expect(body.message).toContain('backendError');

    const failed = await rows<{ platform: string; status: string; error: string; remote_id: string | null }>(server, sql`select platform, status, error, remote_id from social_publications where user_id = ${frank.userId}::uuid order by created_at`);
    expect(failed.map((f) => f.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
    expect(failed[0].error).toContain('spam_risk_too_many_posts');
    expect(failed[1].remote_id).toMatch(/^v_pub_file~/); // TikTok had named the publish id before the transfer failed

    // An access token the platform no longer accepts is an upstream failure too.
    standIn.expireAccessTokens();
    body = expectErrorEnvelope(await post('tiktok'), 502, 'publishing.error.upstream');
    expect(body.message).toContain('access_token_invalid');
  });

  it('answers 502 when the platform cannot be reached', async () => {
    const gina = await registerAndLogin(server);
    await linkAccount(server, standIn, gina, 'tiktok');
    const content = await createContent(server, gina);
    const original = server.service.config.TIKTOK_API_BASE_URL;
    server.service.config.TIKTOK_API_BASE_URL = 'http://127.0.0.1:9';
    try {
      const body = expectErrorEnvelope(await gina.api.post(`${base}/tiktok/upload`, { id: content.id, title: 'Tour' }, withUserId(gina)), 502, 'publishing.error.upstream');
      expect(body.message).toContain('network_error');
    } finally {
      server.service.config.TIKTOK_API_BASE_URL = original;
    }
  });
});

describe('linked accounts', () => {
  it('lists the caller\'s linked accounts without tokens and unlinks them', async () => {
    const hana = await registerAndLogin(server);
    await linkAccount(server, standIn, hana, 'tiktok');
    const list = await hana.api.get(`${base}/social/accounts`);
    expect(list.status).toBe(200);
    expect(list.body.data.accounts).toHaveLength(1);
    expect(list.body.data.accounts[0]).toMatchObject({ platform: 'tiktok', scope: 'user.info.basic,video.publish,video.upload' });
    expect(list.text).not.toMatch(/act\.|rft\.|access_token|refresh_token/);
    expect((await hana.api.delete(`${base}/social/accounts/tiktok`)).status).toBe(204);
    expectErrorEnvelope(await hana.api.delete(`${base}/social/accounts/tiktok`), 404, 'publishing.error.account_not_linked');
    expectErrorEnvelope(await hana.api.delete(`${base}/social/accounts/vimeo`), 400);
    const content = await createContent(server, hana);
    expectErrorEnvelope(await hana.api.post(`${base}/tiktok/upload`, { id: content.id, title: 'Tour' }, withUserId(hana)), 409, 'publishing.error.account_not_linked');
  });
});
