// Unsafe production defaults (issue 23): the TikTok and YouTube client credentials default to
// built-in `sandbox-*` values that only the local stand-ins accept. A production process
// (NODE_ENV=production, started as an operator starts it: `node --import tsx main.ts`) without
// real values starts with publishing to that platform switched off: it says so in its log and in
// /readyz (still 200: the node serves everything else), and linking or publishing to that platform
// answers 503 publishing.error.unavailable. A platform given real credentials stays on.
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUpChildren, freshDataDir, listeningPort, startChild, type Child } from '../helpers/child-process.js';

afterAll(() => cleanUpChildren());

const admin = { phone_number: '+84909999997', password: 'admin-password-3' };

async function startProduction(env: Record<string, string>): Promise<{ node: Child; url: string; token: string }> {
  const node = startChild(['--import', 'tsx', 'main.ts'], {
    NODE_ENV: 'production',
    DATA_DIR: freshDataDir(),
    ADMIN_PHONE_NUMBER: admin.phone_number,
    ADMIN_PASSWORD: admin.password,
    ...env,
  });
  const url = `http://127.0.0.1:${await listeningPort(node)}`;
  const login = await fetch(`${url}/auth/api/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(admin) });
  expect(login.status).toBe(200);
  const token = ((await login.json()) as { data: { AccessToken: string } }).data.AccessToken;
  return { node, url, token };
}

async function stop(node: Child): Promise<void> {
  node.child.kill('SIGTERM');
  expect(await node.exited).toBe(0);
}

const get = (url: string, token: string) => fetch(url, { headers: { authorization: `Bearer ${token}` } });

describe('a production process without publishing credentials', () => {
  it('starts with TikTok and YouTube publishing switched off, says so in its log and /readyz, and answers 503 to linking and publishing', async () => {
    const { node, url, token } = await startProduction({});
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ok',
      transport: 'uws-native',
      media_storage: expect.stringMatching(/^local:/),
      publishing_off: ['tiktok', 'youtube'],
      publishing_off_reason: 'client credentials unset (sandbox values) in production',
    });
    expect(node.stdout()).toContain('TikTok publishing is switched off');
    expect(node.stdout()).toContain('YouTube publishing is switched off');
    for (const platform of ['tiktok', 'youtube']) {
      const auth = await get(`${url}/content/api/v1/${platform}/auth`, token);
      expect(auth.status).toBe(503);
      expect(((await auth.json()) as { error_code: string }).error_code).toBe('publishing.error.unavailable');
      const link = await fetch(`${url}/content/api/v1/${platform}/link`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ code: 'c0de', state: 's7ate' }),
      });
      expect(link.status).toBe(503);
    }
    // Everything else serves: the caller's (empty) list of linked accounts.
    expect((await get(`${url}/content/api/v1/social/accounts`, token)).status).toBe(200);
    await stop(node);
  }, 120_000);

  it('keeps a platform given real credentials on: YouTube configured, TikTok not', async () => {
    const { node, url, token } = await startProduction({ YOUTUBE_CLIENT_ID: 'real-client-id.apps.example', YOUTUBE_CLIENT_SECRET: 'real-client-secret-value' });
    const ready = (await (await fetch(`${url}/readyz`)).json()) as { publishing_off?: string[] };
    expect(ready.publishing_off).toEqual(['tiktok']);
    const youtube = await get(`${url}/content/api/v1/youtube/auth`, token);
    expect(youtube.status).toBe(200);
    expect(((await youtube.json()) as { data: { url: string } }).data.url).toContain('client_id=real-client-id.apps.example');
    expect((await get(`${url}/content/api/v1/tiktok/auth`, token)).status).toBe(503);
    await stop(node);
  }, 120_000);
});
