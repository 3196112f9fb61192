// Social publishing over the real server, with a local stand-in playing TikTok and Google/YouTube.
// Completing a link (callback, POST /{platform}/link) is tested in linking.test.ts.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { jwtVerify } from 'jose';
import { sql } from 'drizzle-orm';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { decodeMasterKey, deriveKeys } from '../../src/publishing/secret-keys.js';
import { TokenCipher } from '../../src/shared/token-cipher.js';
import { GOOGLE_CLIENT_ID, TIKTOK_CLIENT_KEY } from './platform-stand-in.js';
import { createContent, linkAccount, rows, type ContentFixture, usePublishingServer } from './fixtures.js';
import { PLATFORMS, type Platform } from '../../src/publishing/platforms.js';

const MASTER_KEY = '7f'.repeat(32);
const keys = deriveKeys(decodeMasterKey(MASTER_KEY));
const base = '/content/api/v1';

const { standIn, booted } = usePublishingServer({ PUBLISHING_SECRET_KEY: MASTER_KEY });

let server: TestServer;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  server = booted.current;
  [alice, bob] = await Promise.all([registerAndLogin(server), registerAndLogin(server)]);
});

const withUserId = (user: TestUser) => ({ headers: { 'x-user-id': user.userId } });
const callbackUrl = (platform: string) => `${server.service.config.publicBaseUrl}${base}/${platform}/callback`;

describe('GET /tiktok/auth and /youtube/auth', () => {
  it.each(['tiktok', 'youtube'])('should fail with 401 on /%s/auth without a bearer token', async (platform) => {
    expectErrorEnvelope(await new ApiClient(server.url).get(`${base}/${platform}/auth`), 401, 'auth.error');
  });

  it('should give the TikTok Login Kit URL with every parameter, a hex S256 PKCE challenge and a signed state', async () => {
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
    const [row] = await rows<{ code_verifier_enc: string; user_id: string }>(
      server,
      sql`select code_verifier_enc, user_id from social_oauth_states where id = ${payload.jti!}::uuid`,
    );
    expect(row.user_id).toBe(alice.userId);
    const verifier = new TokenCipher(keys.tokenEncryptionKey).open(row.code_verifier_enc, `oauth-state:${payload.jti}:code_verifier`);
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(row.code_verifier_enc).not.toContain(verifier);
    expect(createHash('sha256').update(verifier).digest('hex')).toBe(q.get('code_challenge'));
  });

  it('should give the Google OAuth URL with offline access, consent prompt, a base64url S256 challenge and a signed state', async () => {
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

  it('should make a fresh state and challenge each time', async () => {
    const [a, b] = await Promise.all([alice.api.get(`${base}/tiktok/auth`), alice.api.get(`${base}/tiktok/auth`)]);
    const qa = new URL(a.body.data.url).searchParams;
    const qb = new URL(b.body.data.url).searchParams;
    expect(qa.get('state')).not.toBe(qb.get('state'));
    expect(qa.get('code_challenge')).not.toBe(qb.get('code_challenge'));
  });
});

describe('POST /tiktok/upload and /youtube/upload: refusals', () => {
  let content: ContentFixture;
  beforeAll(async () => {
    content = await createContent(server, alice);
  });
  const upload = (platform: Platform, body: unknown) => alice.api.post(`${base}/${platform}/upload`, body, withUserId(alice));
  const ok = () => ({ id: content.id, title: 'Tour', description: 'd', tags: ['a'] });

  describe.each(PLATFORMS)('%s', (platform) => {
    it('should fail with 401 without a bearer token', async () => {
      expectErrorEnvelope(await new ApiClient(server.url).post(`${base}/${platform}/upload`, ok(), withUserId(alice)), 401, 'auth.error');
    });

    it('should fail with 400 naming x-user-id without the header', async () => {
      expect(expectErrorEnvelope(await alice.api.post(`${base}/${platform}/upload`, ok()), 400).details?.field).toBe('x-user-id');
    });

    it('should fail with 401 identity_mismatch when x-user-id names another user', async () => {
      expectErrorEnvelope(await alice.api.post(`${base}/${platform}/upload`, ok(), withUserId(bob)), 401, 'auth.error.identity_mismatch');
    });

    it('should fail with 401 identity_mismatch when x-user-id names no user', async () => {
      expectErrorEnvelope(
        await alice.api.post(`${base}/${platform}/upload`, ok(), { headers: { 'x-user-id': 'nobody' } }),
        401,
        'auth.error.identity_mismatch',
      );
    });

    it.each([
      ['id', 'an id that is not a uuid', { id: 'not-a-uuid' }],
      ['title', 'no title', { title: undefined }],
      ['title', 'an empty title', { title: '' }],
      ['tags', 'tags that are not an array', { tags: 'a,b' }],
      ['tags.0', 'a tag that is not a string', { tags: [1] }],
      ['tags', 'more than 30 tags', { tags: Array.from({ length: 31 }, (_, i) => `t${i}`) }],
    ])('should fail with 400 naming %s with %s', async (field, _case, fields) => {
      expect(expectErrorEnvelope(await upload(platform, { ...ok(), ...fields }), 400).details?.field).toBe(field);
    });

    it('should fail with 400 on malformed JSON', async () => {
      expectErrorEnvelope(
        await alice.api.request('POST', `${base}/${platform}/upload`, {
          rawBody: '{"id":',
          headers: { 'content-type': 'application/json', 'x-user-id': alice.userId },
        }),
        400,
      );
    });
  });

  it.each([
    ['a title over 100 characters', { title: 'x'.repeat(101) }, 'title'],
    ['a title with angle brackets', { title: 'a <b> c' }, 'title'],
    ['an unknown privacy_status', { privacy_status: 'secret' }, 'privacy_status'],
  ])('should fail with 400 on YouTube with %s', async (_case, fields, field) => {
    expect(expectErrorEnvelope(await upload('youtube', { ...ok(), ...fields }), 400).details?.field).toBe(field);
  });

  it('should fail with 400 on TikTok with an unknown privacy_level', async () => {
    expect(expectErrorEnvelope(await upload('tiktok', { ...ok(), privacy_level: 'EVERYONE' }), 400).details?.field).toBe('privacy_level');
  });

  describe('content that cannot be published', () => {
    let bobs: ContentFixture;
    let processing: ContentFixture;
    let failed: ContentFixture;
    let noFile: ContentFixture;
    let deleted: ContentFixture;
    beforeAll(async () => {
      bobs = await createContent(server, bob);
      processing = await createContent(server, alice, { status: 'processing' });
      failed = await createContent(server, alice, { status: 'failed' });
      noFile = await createContent(server, alice, { withFile: false });
      deleted = await createContent(server, alice);
      await rows(server, sql`update contents set deleted_at = now() where id = ${deleted.id}::uuid`);
    });
    const publish = (platform: Platform, id: string) => alice.api.post(`${base}/${platform}/upload`, { id, title: 'Tour', tags: [] }, withUserId(alice));

    describe.each(PLATFORMS)('%s', (platform) => {
      it('should fail with 404 for unknown content', async () => {
        expectErrorEnvelope(await publish(platform, '0b0f7e0c-8a4e-4c1e-9d7e-2f1a3b4c5d6e'), 404);
      });

      it('should fail with 404 for deleted content', async () => {
        expectErrorEnvelope(await publish(platform, deleted.id), 404);
      });

      it("should fail with 403 not_owner for another user's content", async () => {
        expectErrorEnvelope(await publish(platform, bobs.id), 403, 'publishing.error.not_owner');
      });

      it('should fail with 409 content_not_ready for content still processing', async () => {
        expectErrorEnvelope(await publish(platform, processing.id), 409, 'publishing.error.content_not_ready');
      });

      it('should fail with 409 content_not_ready for content whose processing failed', async () => {
        expectErrorEnvelope(await publish(platform, failed.id), 409, 'publishing.error.content_not_ready');
      });

      it('should fail with 409 content_not_ready for content without its video file', async () => {
        expectErrorEnvelope(await publish(platform, noFile.id), 409, 'publishing.error.content_not_ready');
      });
    });
  });

  it.each(PLATFORMS)('should fail with 409 account_not_linked on %s for a user who never linked it', async (platform) => {
    const carol = await registerAndLogin(server);
    const own = await createContent(server, carol);
    const res = await carol.api.post(`${base}/${platform}/upload`, { id: own.id, title: 'Tour', tags: [] }, withUserId(carol));
    expect(expectErrorEnvelope(res, 409, 'publishing.error.account_not_linked').message).toContain(`/${platform}/auth`);
  });
});

describe('POST /tiktok/upload and /youtube/upload: publishing', () => {
  it('should publish to TikTok: init with the file size, the bytes with Content-Range, status fetched and recorded', async () => {
    await linkAccount(server, standIn, alice, 'tiktok');
    const content = await createContent(server, alice, { size: 700 * 1024 + 7 });
    const res = await alice.api.post(
      `${base}/tiktok/upload`,
      { id: content.id, title: 'Sunny 2BR in District 2', description: 'River view, pool', tags: ['realestate', 'hcmc'] },
      withUserId(alice),
    );
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const { publish_id, status, publication_id } = res.body.data;
    expect(publish_id).toMatch(/^v_pub_file~/);
    expect(status).toBe('PUBLISH_COMPLETE');

    const upload = [...standIn.uploads.values()].find((u) => u.id === publish_id)!;
    expect(upload.complete).toBe(true);
    expect(upload.bytes.equals(content.bytes)).toBe(true);
    expect(upload.contentRanges).toEqual([`bytes 0-${content.bytes.length - 1}/${content.bytes.length}`]);
    expect(upload.metadata.source_info).toEqual({
      source: 'FILE_UPLOAD',
      video_size: content.bytes.length,
      chunk_size: content.bytes.length,
      total_chunk_count: 1,
    });
    expect(upload.metadata.post_info.title).toBe('Sunny 2BR in District 2\nRiver view, pool\n#realestate #hcmc');
    expect(upload.metadata.post_info.privacy_level).toBe('SELF_ONLY');

    const [row] = await rows(server, sql`select * from social_publications where id = ${publication_id}::uuid`);
    expect(row).toMatchObject({
      user_id: alice.userId,
      content_id: content.id,
      platform: 'tiktok',
      remote_id: publish_id,
      status: 'PUBLISH_COMPLETE',
      error: null,
    });
  });

  it("should publish a large video to TikTok in chunks (TikTok's chunk rules)", async () => {
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

  it('should publish to YouTube: resumable session with the metadata, then the bytes; answers the watch URL', async () => {
    await linkAccount(server, standIn, alice, 'youtube');
    const content = await createContent(server, alice, { size: 333 * 1024 + 1 });
    const res = await alice.api.post(
      `${base}/youtube/upload`,
      { id: content.id, title: 'Sunny 2BR', description: 'River view', tags: ['real estate', 'hcmc'], privacy_status: 'unlisted' },
      withUserId(alice),
    );
    expect(res.status).toBe(200);
    const { video_id, url, status, publication_id } = res.body.data;
    expect(video_id).toMatch(/^[A-Za-z0-9_-]{11}$/);
    expect(url).toBe(`https://www.youtube.com/watch?v=${video_id}`);
    expect(status).toBe('uploaded');
    const upload = [...standIn.uploads.values()].find((u) => u.id === video_id)!;
    expect(upload.bytes.equals(content.bytes)).toBe(true);
    expect(upload.metadata).toEqual({
      snippet: { title: 'Sunny 2BR', description: 'River view', tags: ['real estate', 'hcmc'], categoryId: '22' },
      status: { privacyStatus: 'unlisted' },
    });
    const [row] = await rows(server, sql`select * from social_publications where id = ${publication_id}::uuid`);
    expect(row).toMatchObject({ platform: 'youtube', remote_id: video_id, status: 'uploaded' });
  });

  it('should default YouTube privacy to private', async () => {
    await linkAccount(server, standIn, alice, 'youtube');
    const content = await createContent(server, alice);
    const res = await alice.api.post(`${base}/youtube/upload`, { id: content.id, title: 'Quiet tour' }, withUserId(alice));
    expect(res.status).toBe(200);
    expect([...standIn.uploads.values()].find((u) => u.id === res.body.data.video_id)!.metadata.status.privacyStatus).toBe('private');
  });

  for (const platform of ['tiktok', 'youtube'] as const) {
    it(`should refresh an expired ${platform} access token before uploading`, async () => {
      const dave = await registerAndLogin(server);
      await linkAccount(server, standIn, dave, platform);
      const content = await createContent(server, dave);
      const [before] = await rows<{ access_token_enc: string; refresh_token_enc: string }>(
        server,
        sql`select access_token_enc, refresh_token_enc from social_accounts where user_id = ${dave.userId}::uuid`,
      );
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

      const [after] = await rows<{ access_token_enc: string; refresh_token_enc: string; access_expires_at: Date }>(
        server,
        sql`select access_token_enc, refresh_token_enc, access_expires_at from social_accounts where user_id = ${dave.userId}::uuid`,
      );
      expect(after.access_token_enc).not.toBe(before.access_token_enc);
      expect(new Date(after.access_expires_at).getTime()).toBeGreaterThan(Date.now());
      // Google sends no new refresh token: the old one is kept; TikTok rotates it.
      if (platform === 'youtube') expect(after.refresh_token_enc).toBe(before.refresh_token_enc);
      else expect(after.refresh_token_enc).not.toBe(before.refresh_token_enc);
      expect(JSON.stringify(after)).not.toContain(upload.accessToken);
    });
  }

  it('should refresh once when two uploads find the same expired TikTok token (TikTok rotates refresh tokens)', async () => {
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

  it('should fail with 409 account_link_expired and forgets the link when the refresh token was revoked', async () => {
    const erin = await registerAndLogin(server);
    await linkAccount(server, standIn, erin, 'youtube');
    const content = await createContent(server, erin);
    standIn.revokeRefreshTokens();
    await rows(server, sql`update social_accounts set access_expires_at = now() - interval '1 minute' where user_id = ${erin.userId}::uuid`);
    const res = await erin.api.post(`${base}/youtube/upload`, { id: content.id, title: 'Tour' }, withUserId(erin));
    expectErrorEnvelope(res, 409, 'publishing.error.account_link_expired');
    expect(await rows(server, sql`select 1 from social_accounts where user_id = ${erin.userId}::uuid`)).toHaveLength(0);
  });

  it('should fail with 502 naming the platform error code (never a token) when the platform fails, and records the failure', async () => {
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

    standIn.failNext('youtube.session', {
      status: 403,
      body: {
        error: { code: 403, message: 'quota', errors: [{ reason: 'quotaExceeded', domain: 'youtube.quota', message: 'quota' }], status: 'PERMISSION_DENIED' },
      },
    });
    body = expectErrorEnvelope(await post('youtube'), 502, 'publishing.error.upstream');
    expect(body.message).toContain('quotaExceeded');

    standIn.failNext('youtube.transfer', {
      status: 503,
      body: { error: { code: 503, message: 'backend', errors: [{ reason: 'backendError' }], status: 'UNAVAILABLE' } },
    });
    body = expectErrorEnvelope(await post('youtube'), 502, 'publishing.error.upstream');
    expect(body.message).toContain('backendError');

    const failed = await rows<{ platform: string; status: string; error: string; remote_id: string | null }>(
      server,
      sql`select platform, status, error, remote_id from social_publications where user_id = ${frank.userId}::uuid order by created_at`,
    );
    expect(failed.map((f) => f.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
    expect(failed[0].error).toContain('spam_risk_too_many_posts');
    expect(failed[1].remote_id).toMatch(/^v_pub_file~/); // TikTok had named the publish id before the transfer failed

    // An access token the platform no longer accepts is an upstream failure too.
    standIn.expireAccessTokens();
    body = expectErrorEnvelope(await post('tiktok'), 502, 'publishing.error.upstream');
    expect(body.message).toContain('access_token_invalid');
  });

  it('should fail with 502 when the platform cannot be reached', async () => {
    const gina = await registerAndLogin(server);
    await linkAccount(server, standIn, gina, 'tiktok');
    const content = await createContent(server, gina);
    // The platform closes the connection without an answer (the configuration is frozen, so the
    // stand-in plays the unreachable platform).
    standIn.failNext('tiktok.init', { drop: true });
    const body = expectErrorEnvelope(
      await gina.api.post(`${base}/tiktok/upload`, { id: content.id, title: 'Tour' }, withUserId(gina)),
      502,
      'publishing.error.upstream',
    );
    expect(body.message).toContain('network_error');
  });
});

describe('linked accounts', () => {
  it("should list the caller's linked accounts without tokens and unlinks them", async () => {
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
    expectErrorEnvelope(
      await hana.api.post(`${base}/tiktok/upload`, { id: content.id, title: 'Tour' }, withUserId(hana)),
      409,
      'publishing.error.account_not_linked',
    );
  });
});
