// Tokens and sessions: /refresh-token, /logout, forged and expired tokens, revoked sessions.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, expectErrorEnvelope, login, registerAndLogin, type TestUser } from '../helpers/api.js';
import { AUTH, signAccessToken } from './fixtures.js';

const JWT_SECRET = 'test-secret-of-the-accounts-suite-0123456789';

const server = useTestServer({ JWT_SECRET });
const api = () => new ApiClient(server.url);
const newUser = () => registerAndLogin(server.current);
const inSeconds = (seconds: number) => Math.floor(Date.now() / 1000) + seconds;

const sessionHeaders = (u: TestUser) => ({ 'x-user-username': u.username, 'x-session-id': u.sessionId });
const refresh = (u: TestUser, headers: Record<string, string> = sessionHeaders(u), token: string | null = null, refreshToken = u.refreshToken) =>
  api().post(`${AUTH}/refresh-token`, { refresh_token: refreshToken }, { headers, token });
const me = (token: string) => api().get(`${AUTH}/user/me`, { token });

describe('POST /refresh-token', () => {
  it('should fail with 400 without X-Session-Id', async () => {
    const user = await newUser();
    const noSession = expectErrorEnvelope(await refresh(user, { 'x-user-username': user.username }), 400);
    expect(noSession.details?.field).toBe('x-session-id');
  });

  it('should fail with 400 without X-User-Username', async () => {
    const user = await newUser();
    expectErrorEnvelope(await refresh(user, { 'x-session-id': user.sessionId }), 400);
  });

  it('should fail with 400 for a malformed X-Session-Id', async () => {
    const user = await newUser();
    expectErrorEnvelope(await refresh(user, { ...sessionHeaders(user), 'x-session-id': 'abc' }), 400);
  });

  it('should fail with 400 for a missing or wrongly typed refresh_token', async () => {
    const user = await newUser();
    expectErrorEnvelope(await api().post(`${AUTH}/refresh-token`, {}, { headers: sessionHeaders(user) }), 400, 'validation.error');
    expectErrorEnvelope(await api().post(`${AUTH}/refresh-token`, { refresh_token: 42 }, { headers: sessionHeaders(user) }), 400, 'validation.error');
  });

  it('should fail with 401 invalid_refresh_token for a wrong refresh token', async () => {
    const user = await newUser();
    expectErrorEnvelope(
      await api().post(`${AUTH}/refresh-token`, { refresh_token: 'x'.repeat(64) }, { headers: sessionHeaders(user) }),
      401,
      'auth.error.invalid_refresh_token',
    );
  });

  it("should fail with 401 for another user's session or username", async () => {
    const user = await newUser();
    const other = await newUser();
    expectErrorEnvelope(await refresh(user, { ...sessionHeaders(user), 'x-session-id': other.sessionId }), 401);
    expectErrorEnvelope(await refresh(user, { ...sessionHeaders(user), 'x-user-username': other.username }), 401);
    expectErrorEnvelope(await refresh(other, sessionHeaders(user)), 401);
  });

  it("should fail with 401 invalid_refresh_token for another session's refresh token, and leave the session alone", async () => {
    const user = await newUser();
    const other = await newUser();
    // Another session's genuine token, and a made-up one of this session's form.
    expectErrorEnvelope(await refresh(user, sessionHeaders(user), null, other.refreshToken), 401, 'auth.error.invalid_refresh_token');
    expectErrorEnvelope(await refresh(user, sessionHeaders(user), null, `0.${'A'.repeat(43)}`), 401, 'auth.error.invalid_refresh_token');
    expect((await me(user.token)).status).toBe(200);
    expect((await refresh(user)).status).toBe(200);
  });

  it('should succeed with a new access token and the next refresh token for the same session, without any access token', async () => {
    const user = await newUser();
    const res = await refresh(user);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ ExpiresIn: 900, TokenType: 'Bearer', SessionId: user.sessionId });
    expect(res.body.data.AccessToken.split('.')).toHaveLength(3);
    expect(typeof res.body.data.RefreshToken).toBe('string');
    expect(res.body.data.RefreshToken).not.toBe(user.refreshToken);
    expect((await me(res.body.data.AccessToken)).body.data.sub).toBe(user.userId);
    // The next one works (once), and so on.
    const next = await refresh(user, sessionHeaders(user), null, res.body.data.RefreshToken);
    expect(next.status).toBe(200);
    expect(next.body.data.RefreshToken).not.toBe(res.body.data.RefreshToken);
    expect((await me(user.token)).status).toBe(200);
  });

  it('should end the session when a used refresh token comes back: its access and refresh tokens answer 401', async () => {
    const user = await newUser();
    const rotated = await refresh(user);
    expect(rotated.status).toBe(200);
    const reuse = await refresh(user);
    expectErrorEnvelope(reuse, 401, 'auth.error.refresh_token_reused');
    expectErrorEnvelope(await me(user.token), 401, 'auth.error.session_revoked');
    expectErrorEnvelope(await me(rotated.body.data.AccessToken), 401, 'auth.error.session_revoked');
    expectErrorEnvelope(await refresh(user, sessionHeaders(user), null, rotated.body.data.RefreshToken), 401, 'auth.error.invalid_refresh_token');
    expectErrorEnvelope(await refresh(user), 401, 'auth.error.invalid_refresh_token');
  });

  it('should let one of two refreshes with the same token win, and then end the session (the other used it)', async () => {
    const user = await newUser();
    const answers = await Promise.all([refresh(user), refresh(user)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 401]);
    expectErrorEnvelope(
      answers.find((r) => r.status === 401)!,
      401,
      'auth.error.refresh_token_reused',
    );
    expectErrorEnvelope(await me(user.token), 401, 'auth.error.session_revoked');
  });

  it('should succeed with the username in another case and an expired access token sent along', async () => {
    const user = await newUser();
    const expired = await signAccessToken(JWT_SECRET, { sub: user.userId, sid: user.sessionId, username: user.username }, inSeconds(-60));
    expect((await refresh(user, { ...sessionHeaders(user), 'x-user-username': user.username.toUpperCase() }, expired)).status).toBe(200);
  });
});

describe('POST /logout', () => {
  it('should fail with 400 when the headers are missing', async () => {
    const user = await newUser();
    expectErrorEnvelope(await user.api.post(`${AUTH}/logout`), 400);
    expectErrorEnvelope(await user.api.post(`${AUTH}/logout`, undefined, { headers: { 'x-user-username': user.username } }), 400);
    expect((await me(user.token)).status).toBe(200);
  });

  it('should fail with 401 missing_token without a token', async () => {
    const user = await newUser();
    expectErrorEnvelope(await api().post(`${AUTH}/logout`, undefined, { headers: sessionHeaders(user) }), 401, 'auth.error.missing_token');
    expect((await me(user.token)).status).toBe(200);
  });

  it('should fail with 401 session_mismatch when the headers name another session or user', async () => {
    const user = await newUser();
    const other = await newUser();
    expectErrorEnvelope(await user.api.post(`${AUTH}/logout`, undefined, { headers: sessionHeaders(other) }), 401, 'auth.error.session_mismatch');
    expectErrorEnvelope(await user.api.post(`${AUTH}/logout`, undefined, { headers: { ...sessionHeaders(user), 'x-user-username': other.username } }), 401);
    // Neither session was ended.
    expect((await me(user.token)).status).toBe(200);
    expect((await me(other.token)).status).toBe(200);
  });

  it('should succeed with {message} and end the session: its access and refresh tokens answer 401 from then on', async () => {
    const user = await newUser();
    const res = await user.api.post(`${AUTH}/logout`, undefined, { headers: sessionHeaders(user) });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ message: expect.any(String) });
    expectErrorEnvelope(await me(user.token), 401, 'auth.error.session_revoked');
    expectErrorEnvelope(await refresh(user), 401);
    expectErrorEnvelope(await user.api.post(`${AUTH}/logout`, undefined, { headers: sessionHeaders(user) }), 401);
  });

  it("should leave the user's other sessions alive", async () => {
    const user = await newUser();
    const second = await login(server.current, user.phone, user.password);
    expect((await user.api.post(`${AUTH}/logout`, undefined, { headers: sessionHeaders(user) })).status).toBe(200);
    expect((await me(second.token)).status).toBe(200);
  });
});

describe('access tokens', () => {
  it('should fail with 401 invalid_token for a token signed with another key', async () => {
    const user = await newUser();
    const forged = await signAccessToken(
      'another-secret-that-is-long-enough-0123456789',
      { sub: user.userId, sid: user.sessionId, username: user.username },
      inSeconds(600),
    );
    expectErrorEnvelope(await me(forged), 401, 'auth.error.invalid_token');
  });

  it('should fail with 401 token_expired for an expired token', async () => {
    const user = await newUser();
    const claims = { sub: user.userId, sid: user.sessionId, username: user.username };
    expectErrorEnvelope(await me(await signAccessToken(JWT_SECRET, claims, inSeconds(-120))), 401, 'auth.error.token_expired');
    // Control: our signing helper makes tokens the server accepts, so the 401 above is the expiry.
    expect((await me(await signAccessToken(JWT_SECRET, claims, inSeconds(120)))).status).toBe(200);
  });

  it('should fail with 401 for a token naming another user than its session', async () => {
    const user = await newUser();
    const other = await newUser();
    expectErrorEnvelope(await me(await signAccessToken(JWT_SECRET, { sub: other.userId, sid: user.sessionId, username: other.username }, inSeconds(120))), 401);
  });

  it('should fail with 401 for a refresh token or a non-bearer scheme in place of the access token', async () => {
    const user = await newUser();
    expectErrorEnvelope(await me(user.refreshToken), 401);
    expectErrorEnvelope(await api().get(`${AUTH}/user/me`, { headers: { authorization: `Basic ${user.token}` } }), 401);
  });

  it('should succeed with an unexpired token signed with the service key', async () => {
    const user = await newUser();
    const token = await signAccessToken(JWT_SECRET, { sub: user.userId, sid: user.sessionId, username: user.username }, inSeconds(120));
    expect((await me(token)).body.data.sub).toBe(user.userId);
  });
});
