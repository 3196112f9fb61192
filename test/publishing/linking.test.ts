// Linking a TikTok / YouTube account (CONTRACT §19): the public callback only hands the code and
// state to the app; the link completes in POST /{platform}/link, authenticated as the user who
// started it. Runs over the real server with the local platform stand-in.
import { beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, jwtVerify } from 'jose';
import { sql } from 'drizzle-orm';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, login, loginAdmin, registerAndLogin, type TestUser } from '../helpers/api.js';
import { decodeMasterKey, deriveKeys } from '../../src/publishing/secret-keys.js';
import { TokenCipher } from '../../src/shared/token-cipher.js';
import { followRedirect, grantOf, linkAccount, rows, usePublishingServer } from './fixtures.js';

const MASTER_KEY = '5c'.repeat(32);
const keys = deriveKeys(decodeMasterKey(MASTER_KEY));
const base = '/content/api/v1';
const PLATFORMS = ['tiktok', 'youtube'] as const;
type Platform = (typeof PLATFORMS)[number];

const { standIn, booted } = usePublishingServer({ PUBLISHING_SECRET_KEY: MASTER_KEY });

let server: TestServer;

beforeAll(async () => {
  server = booted.current;
});

/** A state as the service would sign it (tests hold the configured master key). */
function signState(claims: { sub: string; jti: string; plat: string }, expiresAt: number, key = keys.stateSigningKey) {
  return new SignJWT({ plat: claims.plat })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setJti(claims.jti)
    .setIssuer('real-estate-video-service')
    .setAudience('social-oauth')
    .setIssuedAt(expiresAt - 600)
    .setExpirationTime(expiresAt)
    .sign(key);
}

/** The user starts linking and consents at the platform; returns where the platform sends the browser. */
async function startAndConsent(user: TestUser, platform: Platform): Promise<{ url: string; location: URL }> {
  const auth = await user.api.get(`${base}/${platform}/auth`);
  expect(auth.status).toBe(200);
  return { url: auth.body.data.url, location: await standIn.consent(auth.body.data.url) };
}

const linkedRows = (userId: string) => rows(server, sql`select platform from social_accounts where user_id = ${userId}::uuid`);
const stateRow = async (state: string) => {
  const { payload } = await jwtVerify(state, keys.stateSigningKey);
  const [row] = await rows<{ used_at: Date | null; user_id: string }>(
    server,
    sql`select used_at, user_id from social_oauth_states where id = ${payload.jti!}::uuid`,
  );
  return row;
};
const post = (user: TestUser, platform: Platform, body: unknown) => user.api.post(`${base}/${platform}/link`, body);

describe('GET /{platform}/callback: hands the grant to the app', () => {
  it('should fail with 400 naming state without a state', async () => {
    const res = await new ApiClient(server.url).get(`${base}/youtube/callback?code=abc`);
    expect(expectErrorEnvelope(res, 400, 'validation.error.invalid_query').details?.field).toBe('state');
  });

  it('should fail with 400 missing_code naming code without either a code or an error', async () => {
    const res = await new ApiClient(server.url).get(`${base}/tiktok/callback?state=abc`);
    expect(expectErrorEnvelope(res, 400, 'publishing.error.missing_code').details?.field).toBe('code');
  });

  for (const platform of PLATFORMS) {
    it(`should answer the ${platform} code and state, link nothing and leave the state unused`, async () => {
      const user = await registerAndLogin(server);
      const { location } = await startAndConsent(user, platform);
      const grant = grantOf(location);
      const res = await followRedirect(server, location);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toEqual({ platform, code: grant.code, state: grant.state, error: null, error_description: null });
      expect(res.body.message).toContain(`/${platform}/link`);
      expect(res.headers.get('cache-control')).toBe('no-store');

      expect(await linkedRows(user.userId)).toHaveLength(0);
      expect((await stateRow(grant.state)).used_at).toBeNull();
      expect(standIn.codes.get(grant.code)?.used).toBe(false);
      // Opening it again changes nothing either.
      expect((await followRedirect(server, location)).status).toBe(200);
      expect(await linkedRows(user.userId)).toHaveLength(0);
    });
  }

  it("should pass the platform's refusal on (200, error named), link nothing, and leave the state usable", async () => {
    const user = await registerAndLogin(server);
    const auth = await user.api.get(`${base}/tiktok/auth`);
    const state = new URL(auth.body.data.url).searchParams.get('state')!;
    const res = await new ApiClient(server.url).get(
      `${base}/tiktok/callback?error=access_denied&error_description=User+cancelled&state=${encodeURIComponent(state)}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ platform: 'tiktok', code: null, state, error: 'access_denied', error_description: 'User cancelled' });
    expect(res.body.message).toContain('not granted');
    expect(await linkedRows(user.userId)).toHaveLength(0);
    expect((await stateRow(state)).used_at).toBeNull();
    // The user changes their mind on the same authorization: it still completes.
    const location = await standIn.consent(auth.body.data.url);
    expect((await post(user, 'tiktok', grantOf(location))).status).toBe(200);
  });
});

describe('POST /{platform}/link', () => {
  it('should fail with 401 without a bearer token, spending nothing', async () => {
    const user = await registerAndLogin(server);
    const { location } = await startAndConsent(user, 'tiktok');
    const grant = grantOf(location);
    expectErrorEnvelope(await new ApiClient(server.url).post(`${base}/tiktok/link`, grant), 401, 'auth.error');
    expectErrorEnvelope(await new ApiClient(server.url, 'not-a-token').post(`${base}/tiktok/link`, grant), 401, 'auth.error');
    expect((await stateRow(grant.state)).used_at).toBeNull();
    expect(await linkedRows(user.userId)).toHaveLength(0);
    expect((await post(user, 'tiktok', grant)).status).toBe(200);
  });

  it('should fail with 400 naming the field of a bad body, before touching the state', async () => {
    const user = await registerAndLogin(server);
    const { location } = await startAndConsent(user, 'youtube');
    const grant = grantOf(location);
    const field = async (body: unknown) => expectErrorEnvelope(await post(user, 'youtube', body), 400, 'validation.error.invalid_body').details?.field;
    expect(await field({ state: grant.state })).toBe('code');
    expect(await field({ code: grant.code })).toBe('state');
    expect(await field({ code: 12345, state: grant.state })).toBe('code');
    expect(await field({ code: grant.code, state: ['x'] })).toBe('state');
    expect(await field({ code: '', state: grant.state })).toBe('code');
    expect(await field({ code: grant.code, state: 'x'.repeat(4097) })).toBe('state');
    expect(await field({ code: 'c'.repeat(4097), state: grant.state })).toBe('code');
    expectErrorEnvelope(await post(user, 'youtube', ['code', 'state']), 400, 'validation.error.invalid_body');
    expectErrorEnvelope(
      await user.api.request('POST', `${base}/youtube/link`, { rawBody: '{"code":', headers: { 'content-type': 'application/json' } }),
      400,
      'request.error.malformed_json',
    );
    expect((await stateRow(grant.state)).used_at).toBeNull();
    expect(await linkedRows(user.userId)).toHaveLength(0);
    expect((await post(user, 'youtube', grant)).status).toBe(200);
  });

  it('should fail with 403 for a role without publish:social', async () => {
    const owner = await registerAndLogin(server);
    const { location } = await startAndConsent(owner, 'tiktok');
    await rows(
      server,
      sql`insert into roles (id, name, description) values (gen_random_uuid(), 'viewer_no_publish', 'test role') on conflict (name) do nothing`,
    );
    const assigned = await (await loginAdmin(server)).api.put(`/authorization/api/v1/users/${owner.userId}/roles`, { role_names: ['viewer_no_publish'] });
    if (assigned.status !== 200) throw new Error(`assigning the role failed: ${assigned.text}`);
    const user = await login(server, owner.phone, owner.password);
    expectErrorEnvelope(await post(user, 'tiktok', grantOf(location)), 403, 'authorization.error');
    expect(await linkedRows(owner.userId)).toHaveLength(0);
  });

  for (const platform of PLATFORMS) {
    it(`should fail with 403 state_mismatch for another user's ${platform} state, linking nothing to either, and the owner can still finish`, async () => {
      const [owner, intruder] = await Promise.all([registerAndLogin(server), registerAndLogin(server)]);
      // The owner starts linking and the link URL is opened by someone else, who consents with
      // their own platform account and then completes in the app as themselves.
      const auth = await owner.api.get(`${base}/${platform}/auth`);
      const intruderLocation = await standIn.consent(auth.body.data.url);
      const callback = await followRedirect(server, intruderLocation);
      expect(callback.status).toBe(200);
      const grant = { code: callback.body.data.code, state: callback.body.data.state };
      const grantsBefore = standIn.grants.length;

      const res = await post(intruder, platform, grant);
      expect(expectErrorEnvelope(res, 403, 'publishing.error.state_mismatch').message).toContain('another user');
      expect(await linkedRows(owner.userId)).toHaveLength(0);
      expect(await linkedRows(intruder.userId)).toHaveLength(0);
      // The intruder's code never reached the platform's token endpoint, and the state is unspent.
      expect(standIn.grants.length).toBe(grantsBefore);
      expect(standIn.codes.get(grant.code)?.used).toBe(false);
      expect((await stateRow(grant.state)).used_at).toBeNull();
      expectErrorEnvelope(await post(intruder, platform, grant), 403, 'publishing.error.state_mismatch');

      // The owner, consenting on the same authorization, completes it for themselves only.
      const ownerLocation = await standIn.consent(auth.body.data.url);
      const linked = await post(owner, platform, grantOf(ownerLocation));
      expect(linked.status).toBe(200);
      expect(linked.body.data).toMatchObject({ platform, linked: true });
      expect((await linkedRows(owner.userId)).map((r) => r.platform)).toEqual([platform]);
      expect(await linkedRows(intruder.userId)).toHaveLength(0);
      expect((await stateRow(grant.state)).used_at).not.toBeNull();
      expect(standIn.codes.get(grant.code)?.used).toBe(false);
    });
  }

  it('should fail with 400 state_used for a replayed state, also with a fresh code', async () => {
    const user = await registerAndLogin(server);
    const { url, location } = await startAndConsent(user, 'tiktok');
    const grant = grantOf(location);
    expect((await post(user, 'tiktok', grant)).status).toBe(200);
    expectErrorEnvelope(await post(user, 'tiktok', grant), 400, 'publishing.error.state_used');
    const fresh = grantOf(await standIn.consent(url));
    const grantsBefore = standIn.grants.length;
    expect(expectErrorEnvelope(await post(user, 'tiktok', fresh), 400, 'publishing.error.state_used').details?.field).toBe('state');
    expect(standIn.grants.length).toBe(grantsBefore);
    expect(standIn.codes.get(fresh.code)?.used).toBe(false);
  });

  it('should fail with 400 invalid_state for forged, tampered, malformed, unknown and cross-platform states, spending nothing', async () => {
    const [user, other] = await Promise.all([registerAndLogin(server), registerAndLogin(server)]);
    const { location } = await startAndConsent(user, 'tiktok');
    const { code, state: realState } = grantOf(location);
    const { payload } = await jwtVerify(realState, keys.stateSigningKey);
    const soon = Math.floor(Date.now() / 1000) + 300;

    // Signed with another key, naming the caller: not ours, whoever it names.
    const otherKey = deriveKeys(decodeMasterKey('11'.repeat(32))).stateSigningKey;
    const forged = await signState({ sub: user.userId, jti: payload.jti!, plat: 'tiktok' }, soon, otherKey);
    expect(expectErrorEnvelope(await post(user, 'tiktok', { code, state: forged }), 400, 'publishing.error.invalid_state').details?.field).toBe('state');
    // The real signature over a payload rewritten to name another user (who then presents it).
    const [h, , s] = realState.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...payload, sub: other.userId })).toString('base64url')}.${s}`;
    expectErrorEnvelope(await post(other, 'tiktok', { code, state: tampered }), 400, 'publishing.error.invalid_state');
    // An unsigned token.
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`;
    expectErrorEnvelope(await post(user, 'tiktok', { code, state: unsigned }), 400, 'publishing.error.invalid_state');
    expectErrorEnvelope(await post(user, 'tiktok', { code, state: 'not-a-state' }), 400, 'publishing.error.invalid_state');
    // A TikTok state is not accepted for YouTube.
    expectErrorEnvelope(await post(user, 'youtube', { code, state: realState }), 400, 'publishing.error.invalid_state');
    // A well-signed state naming no pending authorization.
    const unknown = await signState({ sub: user.userId, jti: '5b0f7e0c-8a4e-4c1e-9d7e-2f1a3b4c5d6e', plat: 'tiktok' }, soon);
    expectErrorEnvelope(await post(user, 'tiktok', { code, state: unknown }), 400, 'publishing.error.invalid_state');
    // A well-signed state whose row belongs to someone else (the row's owner is checked too).
    const crossed = await signState({ sub: other.userId, jti: payload.jti!, plat: 'tiktok' }, soon);
    expectErrorEnvelope(await post(other, 'tiktok', { code, state: crossed }), 400, 'publishing.error.invalid_state');

    expect(await linkedRows(user.userId)).toHaveLength(0);
    expect(await linkedRows(other.userId)).toHaveLength(0);
    expect(standIn.codes.get(code)?.used).toBe(false);
    // None of these used the real state up.
    expect((await post(user, 'tiktok', { code, state: realState })).status).toBe(200);
  });

  it('should fail with 400 state_expired for an expired state, by its signed expiry and by the stored one', async () => {
    const user = await registerAndLogin(server);
    const { location } = await startAndConsent(user, 'youtube');
    const { code, state } = grantOf(location);
    const { payload } = await jwtVerify(state, keys.stateSigningKey);
    const expired = await signState({ sub: user.userId, jti: payload.jti!, plat: 'youtube' }, Math.floor(Date.now() / 1000) - 5);
    expectErrorEnvelope(await post(user, 'youtube', { code, state: expired }), 400, 'publishing.error.state_expired');

    await rows(server, sql`update social_oauth_states set expires_at = now() - interval '1 second' where id = ${payload.jti!}::uuid`);
    expectErrorEnvelope(await post(user, 'youtube', { code, state }), 400, 'publishing.error.state_expired');
    expect(await linkedRows(user.userId)).toHaveLength(0);
  });

  it('should fail with 400 invalid_code when the platform refuses the code', async () => {
    const user = await registerAndLogin(server);
    const auth = await user.api.get(`${base}/youtube/auth`);
    const state = new URL(auth.body.data.url).searchParams.get('state')!;
    const body = expectErrorEnvelope(await post(user, 'youtube', { code: '4/not-issued', state }), 400, 'publishing.error.invalid_code');
    expect(body.details?.field).toBe('code');
    expect(await linkedRows(user.userId)).toHaveLength(0);
  });

  it('should fail with 502 naming the platform error code when the token endpoint fails', async () => {
    const user = await registerAndLogin(server);
    const { location } = await startAndConsent(user, 'tiktok');
    standIn.failNext('tiktok.token', { status: 503, body: { error: 'server_error', error_description: 'try later', log_id: 'x' } });
    const body = expectErrorEnvelope(await post(user, 'tiktok', grantOf(location)), 502, 'publishing.error.upstream');
    expect(body.message).toContain('server_error');
    expect(await linkedRows(user.userId)).toHaveLength(0);
  });

  it('should link TikTok for the caller: exchange the code with the PKCE verifier and store the tokens encrypted', async () => {
    const user = await registerAndLogin(server);
    const res = await linkAccount(server, standIn, user, 'tiktok');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.message).toBe('TikTok account linked');
    expect(res.body.data).toMatchObject({ platform: 'tiktok', linked: true, scope: 'user.info.basic,video.publish,video.upload' });
    expect(res.body.data.external_id).toMatch(/^open_/);
    expect(Date.parse(res.body.data.expires_at)).toBeGreaterThan(Date.now());
    expect(res.text).not.toMatch(/act\.|rft\./);

    const [row] = await rows<Record<string, unknown>>(server, sql`select * from social_accounts where user_id = ${user.userId}::uuid and platform = 'tiktok'`);
    const issuedAccess = [...standIn.accessTokens.keys()].filter((t) => t.startsWith('act.'));
    const issuedRefresh = [...standIn.refreshTokens.keys()].filter((t) => t.startsWith('rft.'));
    expect(issuedAccess.length).toBeGreaterThan(0);
    const dump = JSON.stringify(row);
    for (const token of [...issuedAccess, ...issuedRefresh]) expect(dump).not.toContain(token);
    expect(String(row.access_token_enc)).toMatch(/^v1\./);
    expect(String(row.refresh_token_enc)).toMatch(/^v1\./);
    // …and they open to the token the platform issued.
    const cipher = new TokenCipher(keys.tokenEncryptionKey);
    expect(issuedAccess).toContain(cipher.open(String(row.access_token_enc), `social-account:${user.userId}:tiktok:access`));
    expect(res.body.data.external_id).toBe(
      standIn.accessTokens.get(cipher.open(String(row.access_token_enc), `social-account:${user.userId}:tiktok:access`))!.openId,
    );
  });

  it('should link YouTube the same way', async () => {
    const user = await registerAndLogin(server);
    const res = await linkAccount(server, standIn, user, 'youtube');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ platform: 'youtube', linked: true, external_id: null, scope: 'https://www.googleapis.com/auth/youtube.upload' });
    const [row] = await rows<Record<string, unknown>>(server, sql`select * from social_accounts where user_id = ${user.userId}::uuid and platform = 'youtube'`);
    const dump = JSON.stringify(row);
    for (const token of [...standIn.accessTokens.keys(), ...standIn.refreshTokens.keys()]) expect(dump).not.toContain(token);
    const list = await user.api.get(`${base}/social/accounts`);
    expect(list.body.data.accounts.map((a: { platform: string }) => a.platform)).toEqual(['youtube']);
  });

  it('should be in the OpenAPI document: bearer, publish:social, body {code, state}; the callback is public', async () => {
    const doc = (await new ApiClient(server.url).get('/api/v1/openapi.json')).body;
    for (const platform of PLATFORMS) {
      const link = doc.paths[`${base}/${platform}/link`].post;
      expect(link.security).toEqual([{ bearerAuth: [] }]);
      expect(link['x-permission']).toBe('publish:social');
      const schema = link.requestBody.content['application/json'].schema;
      expect(schema.required).toEqual(expect.arrayContaining(['code', 'state']));
      expect(Object.keys(link.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '502']));
      expect(doc.paths[`${base}/${platform}/callback`].get.security).toEqual([]);
    }
  });
});
