// Tokens and sessions: /refresh-token, /logout, forged and expired tokens, revoked sessions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootServer, type TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, login, registerAndLogin, type TestUser } from '../helpers/api.js';
import { AUTH, signAccessToken } from './fixtures.js';

const JWT_SECRET = 'test-secret-of-the-accounts-suite-0123456789';

let server: TestServer;
let api: ApiClient;

beforeAll(async () => {
  server = await bootServer({ JWT_SECRET });
  api = new ApiClient(server.url);
});
afterAll(async () => {
  await server?.close();
});

const sessionHeaders = (u: TestUser) => ({ 'x-user-username': u.username, 'x-session-id': u.sessionId });
const refresh = (u: TestUser, headers = sessionHeaders(u), token: string | null = null) =>
  api.post(`${AUTH}/refresh-token`, { refresh_token: u.refreshToken }, { headers, token });
const me = (token: string) => api.get(`${AUTH}/user/me`, { token });

describe('POST /refresh-token', () => {
  it('answers a new access token for the same session, without any access token', async () => {
    const user = await registerAndLogin(server);
    const res = await refresh(user);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ ExpiresIn: 900, TokenType: 'Bearer', SessionId: user.sessionId });
    expect(res.body.data.AccessToken.split('.')).toHaveLength(3);
    expect((await me(res.body.data.AccessToken)).body.data.sub).toBe(user.userId);
    // The username header is case-insensitive; an expired access token may be sent along.
    const expired = await signAccessToken(JWT_SECRET, { sub: user.userId, sid: user.sessionId, username: user.username }, Math.floor(Date.now() / 1000) - 60);
    expect((await refresh(user, { ...sessionHeaders(user), 'x-user-username': user.username.toUpperCase() }, expired)).status).toBe(200);
  });

  it('answers 401 for a wrong refresh token, another session, another username', async () => {
    const user = await registerAndLogin(server);
    const other = await registerAndLogin(server);
    expectErrorEnvelope(await api.post(`${AUTH}/refresh-token`, { refresh_token: 'x'.repeat(64) }, { headers: sessionHeaders(user) }), 401, 'auth.error.invalid_refresh_token');
    expectErrorEnvelope(await refresh(user, { ...sessionHeaders(user), 'x-session-id': other.sessionId }), 401);
    expectErrorEnvelope(await refresh(user, { ...sessionHeaders(user), 'x-user-username': other.username }), 401);
    expectErrorEnvelope(await refresh(other, sessionHeaders(user)), 401);
  });

  it('answers 400 for missing headers or body', async () => {
    const user = await registerAndLogin(server);
    const noSession = expectErrorEnvelope(await refresh(user, { 'x-user-username': user.username } as never), 400);
    expect(noSession.details?.field).toBe('x-session-id');
    expectErrorEnvelope(await refresh(user, { 'x-session-id': user.sessionId } as never), 400);
    expectErrorEnvelope(await refresh(user, { ...sessionHeaders(user), 'x-session-id': 'abc' }), 400);
    expectErrorEnvelope(await api.post(`${AUTH}/refresh-token`, {}, { headers: sessionHeaders(user) }), 400, 'validation.error');
    expectErrorEnvelope(await api.post(`${AUTH}/refresh-token`, { refresh_token: 42 }, { headers: sessionHeaders(user) }), 400, 'validation.error');
  });
});

describe('POST /logout', () => {
  it('ends the session: its access and refresh tokens answer 401 from then on', async () => {
    const user = await registerAndLogin(server);
    const second = await login(server, user.phone, user.password);
    const res = await user.api.post(`${AUTH}/logout`, undefined, { headers: sessionHeaders(user) });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ message: expect.any(String) });
    expectErrorEnvelope(await me(user.token), 401, 'auth.error.session_revoked');
    expectErrorEnvelope(await refresh(user), 401);
    expectErrorEnvelope(await user.api.post(`${AUTH}/logout`, undefined, { headers: sessionHeaders(user) }), 401);
    // The other session lives on.
    expect((await me(second.token)).status).toBe(200);
  });

  it('answers 401 without a token and when the headers name another session or user', async () => {
    const user = await registerAndLogin(server);
    const other = await registerAndLogin(server);
    expectErrorEnvelope(await api.post(`${AUTH}/logout`, undefined, { headers: sessionHeaders(user) }), 401, 'auth.error.missing_token');
    expectErrorEnvelope(await user.api.post(`${AUTH}/logout`, undefined, { headers: sessionHeaders(other) }), 401, 'auth.error.session_mismatch');
    expectErrorEnvelope(await user.api.post(`${AUTH}/logout`, undefined, { headers: { ...sessionHeaders(user), 'x-user-username': other.username } }), 401);
    // Neither session was ended.
    expect((await me(user.token)).status).toBe(200);
    expect((await me(other.token)).status).toBe(200);
  });

  it('answers 400 when the headers are missing', async () => {
    const user = await registerAndLogin(server);
    expectErrorEnvelope(await user.api.post(`${AUTH}/logout`), 400);
    expectErrorEnvelope(await user.api.post(`${AUTH}/logout`, undefined, { headers: { 'x-user-username': user.username } }), 400);
    expect((await me(user.token)).status).toBe(200);
  });
});

describe('access tokens', () => {
  it('refuses a token signed with another key (401)', async () => {
    const user = await registerAndLogin(server);
    const forged = await signAccessToken('another-secret-that-is-long-enough-0123456789', { sub: user.userId, sid: user.sessionId, username: user.username }, Math.floor(Date.now() / 1000) + 600);
    expectErrorEnvelope(await me(forged), 401, 'auth.error.invalid_token');
  });

  it('refuses an expired token (401 token_expired) and accepts the same claims unexpired', async () => {
    const user = await registerAndLogin(server);
    const claims = { sub: user.userId, sid: user.sessionId, username: user.username };
    const now = Math.floor(Date.now() / 1000);
    expectErrorEnvelope(await me(await signAccessToken(JWT_SECRET, claims, now - 120)), 401, 'auth.error.token_expired');
    // Control: our signing helper makes tokens the server accepts, so the 401 above is the expiry.
    expect((await me(await signAccessToken(JWT_SECRET, claims, now + 120))).status).toBe(200);
  });

  it('refuses a token naming another user than its session, a refresh token, and garbage', async () => {
    const user = await registerAndLogin(server);
    const other = await registerAndLogin(server);
    const now = Math.floor(Date.now() / 1000);
    expectErrorEnvelope(await me(await signAccessToken(JWT_SECRET, { sub: other.userId, sid: user.sessionId, username: other.username }, now + 120)), 401);
    expectErrorEnvelope(await me(user.refreshToken), 401);
    expectErrorEnvelope(await api.get(`${AUTH}/user/me`, { headers: { authorization: `Basic ${user.token}` } }), 401);
  });
});
