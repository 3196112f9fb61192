import { beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, expectErrorEnvelope, loginAdmin, registerAndLogin } from '../helpers/api.js';

const booted = useTestServer();

let server: TestServer;
beforeAll(async () => {
  server = booted.current;
});

describe('foundation smoke', () => {
  it('answers health and readiness', async () => {
    const api = new ApiClient(server.url);
    expect((await api.get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await api.get('/readyz')).body).toEqual({ status: 'ok', transport: 'uws-native', media_storage: expect.stringMatching(/^local:/) });
  });

  it('answers unknown paths with a 404 envelope', async () => {
    const res = await new ApiClient(server.url).get('/no/such/path');
    expectErrorEnvelope(res, 404, 'route.error');
  });

  it('registers, verifies and logs in a user; the admin exists', async () => {
    const user = await registerAndLogin(server);
    expect(user.token.split('.')).toHaveLength(3);
    const admin = await loginAdmin(server);
    expect(admin.userId).toBeTruthy();
  });
});
