// Publishing without PUBLISHING_SECRET_KEY (a key generated once and kept in service_secrets),
// the key's validation at start-up, and the publish:social permission.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwtVerify } from 'jose';
import { sql } from 'drizzle-orm';
import { bootServer, type TestServer } from '../helpers/server.js';
import { expectErrorEnvelope, login, registerAndLogin } from '../helpers/api.js';
import { loadConfig } from '../../src/config.js';
import { decodeMasterKey, deriveKeys } from '../../src/publishing/secret-keys.js';
import { TokenCipher } from '../../src/shared/token-cipher.js';
import { PlatformStandIn } from './platform-stand-in.js';
import { createContent, linkAccount, rows } from './fixtures.js';

let standIn: PlatformStandIn;
let server: TestServer;

beforeAll(async () => {
  standIn = await new PlatformStandIn().start();
  server = await bootServer(standIn.env());
});
afterAll(async () => {
  await server?.close();
  await standIn?.stop();
});

describe('publishing keys', () => {
  it('generates a key once, keeps it in service_secrets, and seals tokens with it', async () => {
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

  it('refuses a malformed PUBLISHING_SECRET_KEY at start-up, naming the variable', () => {
    expect(() => loadConfig({ PUBLISHING_SECRET_KEY: 'too-short' })).toThrow(/PUBLISHING_SECRET_KEY/);
    expect(() => loadConfig({ PUBLISHING_SECRET_KEY: 'ab'.repeat(31) })).toThrow(/PUBLISHING_SECRET_KEY/);
    expect(loadConfig({ PUBLISHING_SECRET_KEY: 'ab'.repeat(32) }).PUBLISHING_SECRET_KEY).toBe('ab'.repeat(32));
    expect(decodeMasterKey(Buffer.alloc(32, 7).toString('base64'))).toHaveLength(32);
  });
});

describe('publish:social permission', () => {
  it('answers 403 to a user whose role lacks it', async () => {
    const owner = await registerAndLogin(server);
    const content = await createContent(server, owner);
    await rows(server, sql`insert into roles (id, name, description) values (gen_random_uuid(), 'viewer_no_publish', 'test role') on conflict (name) do nothing`);
    await rows(server, sql`update users set role = 'viewer_no_publish' where id = ${owner.userId}::uuid`);
    // A role changed behind the service's back is read at the next login (a live session's role
    // may be cached for a few seconds in embedded mode).
    const user = await login(server, owner.phone, owner.password);
    expectErrorEnvelope(await user.api.get('/content/api/v1/tiktok/auth'), 403, 'authorization.error');
    expectErrorEnvelope(await user.api.get('/content/api/v1/youtube/auth'), 403, 'authorization.error');
    for (const platform of ['tiktok', 'youtube']) {
      const res = await user.api.post(`/content/api/v1/${platform}/upload`, { id: content.id, title: 'Tour' }, { headers: { 'x-user-id': user.userId } });
      expectErrorEnvelope(res, 403, 'authorization.error');
    }
  });
});
