// GET /user/sessions, DELETE /user/sessions/{id}, DELETE /user/sessions/others over the real server.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, login, registerAndLogin, type TestUser } from '../helpers/api.js';

const sessionsPath = '/content/api/v1/user/sessions';
const booted = useTestServer({ SCHEDULER_ENABLED: 'false' });
let server: TestServer;

beforeAll(() => {
  server = booted.current;
});

const loginAgain = (u: TestUser, userAgent: string) =>
  new ApiClient(server.url)
    .post('/auth/api/v1/login', { phone_number: u.phone, password: u.password }, { headers: { 'user-agent': userAgent } })
    .then((res) => {
      if (res.status !== 200) throw new Error(res.text);
      return { token: res.body.data.AccessToken as string, refreshToken: res.body.data.RefreshToken as string, sessionId: res.body.data.SessionId as string };
    });

const refresh = (u: TestUser, s: { refreshToken: string; sessionId: string }) =>
  new ApiClient(server.url).post(
    '/auth/api/v1/refresh-token',
    { refresh_token: s.refreshToken },
    {
      headers: { 'x-session-id': s.sessionId, 'x-user-username': u.username },
    },
  );

const sessionIds = async (api: ApiClient): Promise<string[]> =>
  (await api.get(sessionsPath)).body.data.sessions.map((s: { session_id: string }) => s.session_id);

describe('GET /user/sessions', () => {
  it('should fail without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).get(sessionsPath), 401);
  });

  it("lists the caller's live sessions, in the documented shape", async () => {
    const user = await registerAndLogin(server);
    await loginAgain(user, 'PhoneApp/1.0');
    const res = await user.api.get(sessionsPath);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const sessions = res.body.data.sessions as Record<string, unknown>[];
    expect(sessions).toHaveLength(2);
    for (const s of sessions) {
      expect(Object.keys(s).sort()).toEqual(['created_at', 'current', 'ip', 'last_seen_at', 'session_id', 'user_agent']);
      expect(new Date(s.created_at as string).toISOString()).toBe(s.created_at);
      expect(new Date(s.last_seen_at as string).toISOString()).toBe(s.last_seen_at);
      expect(typeof s.ip).toBe('string');
    }
  });

  it('marks the session making the request as current, and only that one', async () => {
    const user = await registerAndLogin(server);
    const phoneSession = await loginAgain(user, 'PhoneApp/1.0');
    const sessions = (await user.api.get(sessionsPath)).body.data.sessions as Record<string, unknown>[];
    expect(sessions.filter((s) => s.current).map((s) => s.session_id)).toEqual([user.sessionId]);
    const phone = sessions.find((s) => s.session_id === phoneSession.sessionId)!;
    expect(phone.user_agent).toBe('PhoneApp/1.0');
    expect(phone.current).toBe(false);
    // Seen from the other session, that one is current.
    const fromPhone = await new ApiClient(server.url, phoneSession.token).get(sessionsPath);
    expect(fromPhone.body.data.sessions.find((s: { current: boolean }) => s.current).session_id).toBe(phoneSession.sessionId);
  });

  it("does not show other users' sessions", async () => {
    const a = await registerAndLogin(server);
    const b = await registerAndLogin(server);
    const ids = await sessionIds(a.api);
    expect(ids).toEqual([a.sessionId]);
    expect(ids).not.toContain(b.sessionId);
  });
});

describe('DELETE /user/sessions/{session_id}', () => {
  it('should fail without a token', async () => {
    const a = await registerAndLogin(server);
    expectErrorEnvelope(await new ApiClient(server.url).delete(`${sessionsPath}/${a.sessionId}`), 401);
  });

  it('should fail with a session id that is not a uuid', async () => {
    const a = await registerAndLogin(server);
    const err = expectErrorEnvelope(await a.api.delete(`${sessionsPath}/not-a-uuid`), 400);
    expect(err.details?.field).toBe('session_id');
  });

  it('should fail with 404 for an unknown session', async () => {
    const a = await registerAndLogin(server);
    expectErrorEnvelope(await a.api.delete(`${sessionsPath}/00000000-0000-4000-8000-000000000000`), 404, 'session.error');
  });

  it("should fail with 404 for another user's session, which stays alive", async () => {
    const a = await registerAndLogin(server);
    const b = await registerAndLogin(server);
    expectErrorEnvelope(await a.api.delete(`${sessionsPath}/${b.sessionId}`), 404, 'session.error');
    expect((await b.api.get(sessionsPath)).status).toBe(200);
  });

  it('should fail with 404 for a session already ended', async () => {
    const user = await registerAndLogin(server);
    const other = await loginAgain(user, 'Tablet');
    expect((await user.api.delete(`${sessionsPath}/${other.sessionId}`)).status).toBe(200);
    expectErrorEnvelope(await user.api.delete(`${sessionsPath}/${other.sessionId}`), 404);
  });

  it('ends one session: its access and refresh tokens fail at once, the others keep working', async () => {
    const user = await registerAndLogin(server);
    const other = await loginAgain(user, 'Tablet');
    const otherApi = new ApiClient(server.url, other.token);
    expect((await otherApi.get(sessionsPath)).status).toBe(200);

    const res = await user.api.delete(`${sessionsPath}/${other.sessionId}`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toEqual({ session_id: other.sessionId, current: false });

    expectErrorEnvelope(await otherApi.get(sessionsPath), 401);
    expectErrorEnvelope(await otherApi.get('/content/api/v1/user/settings'), 401);
    expectErrorEnvelope(await refresh(user, other), 401);
    expect(await sessionIds(user.api)).toEqual([user.sessionId]);
    expect((await refresh(user, user)).status).toBe(200);
  });

  it('ends the current session too', async () => {
    const user = await registerAndLogin(server);
    const res = await user.api.delete(`${sessionsPath}/${user.sessionId}`);
    expect(res.status).toBe(200);
    expect(res.body.data.current).toBe(true);
    expectErrorEnvelope(await user.api.get(sessionsPath), 401);
    expectErrorEnvelope(await refresh(user, user), 401);
  });
});

describe('DELETE /user/sessions/others', () => {
  it('should fail without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).delete(`${sessionsPath}/others`), 401);
  });

  it("ends every session but the current one, and no other user's", async () => {
    const user = await registerAndLogin(server);
    const s2 = await loginAgain(user, 'Laptop');
    const s3 = await loginAgain(user, 'Phone');
    const bystander = await registerAndLogin(server);

    const res = await user.api.delete(`${sessionsPath}/others`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ revoked_count: 2 });

    for (const s of [s2, s3]) {
      expectErrorEnvelope(await new ApiClient(server.url, s.token).get(sessionsPath), 401);
      expectErrorEnvelope(await refresh(user, s), 401);
    }
    const left = (await user.api.get(sessionsPath)).body.data.sessions;
    expect(left).toHaveLength(1);
    expect(left[0]).toMatchObject({ session_id: user.sessionId, current: true });
    expect((await bystander.api.get(sessionsPath)).status).toBe(200);
  });

  it('answers 0 when there is nothing left to end', async () => {
    const user = await registerAndLogin(server);
    await loginAgain(user, 'Laptop');
    expect((await user.api.delete(`${sessionsPath}/others`)).body.data).toEqual({ revoked_count: 1 });
    expect((await user.api.delete(`${sessionsPath}/others`)).body.data).toEqual({ revoked_count: 0 });
  });

  it('leaves logging in working: a new login opens a new session', async () => {
    const user = await registerAndLogin(server);
    await loginAgain(user, 'Laptop');
    await user.api.delete(`${sessionsPath}/others`);
    const fresh = await login(server, user.phone, user.password);
    expect((await fresh.api.get(sessionsPath)).body.data.sessions).toHaveLength(2);
  });
});
