// Publishing without PUBLISHING_SECRET_KEY (a key generated once and kept in service_secrets),
// the key's validation at start-up, and the publish:social permission.
import { beforeAll, describe, expect, it } from 'vitest';
import { jwtVerify } from 'jose';
import { sql } from 'drizzle-orm';
import type { TestServer } from '../helpers/server.js';
import { expectErrorEnvelope, login, loginAdmin, registerAndLogin, type TestUser } from '../helpers/api.js';
import { loadConfig } from '../../src/config.js';
import { decodeMasterKey, deriveKeys } from '../../src/publishing/secret-keys.js';
import { TokenCipher } from '../../src/shared/token-cipher.js';
import { createContent, linkAccount, rows, usePublishingServer } from './fixtures.js';

const { standIn, booted } = usePublishingServer();

let server: TestServer;

beforeAll(async () => {
  server = booted.current;
});

describe('publishing keys', () => {
  it('should fail at start-up with a PUBLISHING_SECRET_KEY that is too short, naming the variable', () => {
    expect(() => loadConfig({ PUBLISHING_SECRET_KEY: 'too-short' })).toThrow(/PUBLISHING_SECRET_KEY/);
  });

  it('should fail at start-up with a PUBLISHING_SECRET_KEY of 31 bytes, naming the variable', () => {
    expect(() => loadConfig({ PUBLISHING_SECRET_KEY: 'ab'.repeat(31) })).toThrow(/PUBLISHING_SECRET_KEY/);
  });

  it('should take a PUBLISHING_SECRET_KEY of 32 bytes in hex or base64', () => {
    expect(loadConfig({ PUBLISHING_SECRET_KEY: 'ab'.repeat(32) }).PUBLISHING_SECRET_KEY).toBe('ab'.repeat(32));
    expect(decodeMasterKey(Buffer.alloc(32, 7).toString('base64'))).toHaveLength(32);
  });

  it('should generate a key once, keep it in service_secrets, and seal tokens with it', async () => {
    const user = await registerAndLogin(server);
    const res = await linkAccount(server, standIn, user, 'tiktok');
    expect(res.status).toBe(200);
    const [secret] = await rows<{ value: string }>(server, sql`select value from service_secrets where name = 'publishing_key'`);
    expect(decodeMasterKey(secret.value)).toHaveLength(32);
    const keys = deriveKeys(decodeMasterKey(secret.value));

    const auth = await user.api.get('/content/api/v1/youtube/auth');
    await expect(jwtVerify(new URL(auth.body.data.url).searchParams.get('state')!, keys.stateSigningKey)).resolves.toBeTruthy();
    const [row] = await rows<{ access_token_enc: string }>(server, sql`select access_token_enc from social_accounts where user_id = ${user.userId}::uuid`);
    const plain = new TokenCipher(keys.tokenEncryptionKey).open(row.access_token_enc, `social-account:${user.userId}:tiktok:access`);
    expect(standIn.accessTokens.has(plain)).toBe(true);
    expect(row.access_token_enc).not.toContain(plain);
    // A sealed value does not open as another user's (bound by additional data).
    expect(() => new TokenCipher(keys.tokenEncryptionKey).open(row.access_token_enc, `social-account:${user.userId}:youtube:access`)).toThrow();
  });
});

describe('publish:social permission', () => {
  let user: TestUser;
  let contentId: string;
  beforeAll(async () => {
    const owner = await registerAndLogin(server);
    contentId = (await createContent(server, owner)).id;
    await rows(
      server,
      sql`insert into roles (id, name, description) values (gen_random_uuid(), 'viewer_no_publish', 'test role') on conflict (name) do nothing`,
    );
    const assigned = await (await loginAdmin(server)).api.put(`/authorization/api/v1/users/${owner.userId}/roles`, { role_names: ['viewer_no_publish'] });
    if (assigned.status !== 200) throw new Error(`assigning the role failed: ${assigned.text}`);
    user = await login(server, owner.phone, owner.password);
  });

  it.each(['tiktok', 'youtube'])('should fail with 403 on GET /%s/auth for a role without it', async (platform) => {
    expectErrorEnvelope(await user.api.get(`/content/api/v1/${platform}/auth`), 403, 'authorization.error');
  });

  it.each(['tiktok', 'youtube'])('should fail with 403 on POST /%s/upload for a role without it', async (platform) => {
    const res = await user.api.post(`/content/api/v1/${platform}/upload`, { id: contentId, title: 'Tour' }, { headers: { 'x-user-id': user.userId } });
    expectErrorEnvelope(res, 403, 'authorization.error');
  });
});
