// The first administrator (CONTRACT §4, §19): an account that someone else registered with
// ADMIN_PHONE_NUMBER is never promoted (start-up refuses, naming the variable), and a username
// `admin` taken by someone else does not stop the administrator from being made.
import { afterEach, describe, expect, it } from 'vitest';
import { startNode, testEnvironment, ADMIN_PASSWORD, type TestServer } from '../helpers/server.js';
import { ApiClient, lastCode, login, uniquePhone, uniqueUsername } from '../helpers/api.js';
import type { RunningService } from '../../service.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A node without an administrator configured, its storage kept for a restart. */
async function nodeWithoutAdministrator() {
  const { env, cleanup } = await testEnvironment({ ADMIN_PHONE_NUMBER: '', ADMIN_PASSWORD: '' });
  cleanups.push(cleanup);
  const node = await startNode(env);
  return { env, node };
}

/** The node as the account helpers take it. */
const serverOf = (node: RunningService, env: Record<string, string>): TestServer => ({
  url: node.url,
  service: node,
  dataDir: env.DATA_DIR,
  env,
  close: () => node.close(),
});

async function stop(node: RunningService) {
  await node.close();
}

const register = (node: RunningService, username: string, phone: string, password = 'attacker-pass-1') =>
  new ApiClient(node.url).post('/auth/api/v1/register', { username, password, phone_number: phone, given_name: 'Eve', family_name: 'Mallory' });

describe('first administrator', () => {
  it('should refuse to start when ADMIN_PHONE_NUMBER belongs to an unverified account someone registered', async () => {
    const { env, node } = await nodeWithoutAdministrator();
    const phone = uniquePhone();
    expect((await register(node, uniqueUsername('eve'), phone)).status).toBe(201);
    await stop(node);

    await expect(startNode({ ...env, ADMIN_PHONE_NUMBER: phone, ADMIN_PASSWORD })).rejects.toThrow(/ADMIN_PHONE_NUMBER/);

    // The account was left as it was: still unverified, still no admin.
    const again = await startNode(env);
    try {
      const res = await new ApiClient(again.url).post('/auth/api/v1/login', { phone_number: phone, password: 'attacker-pass-1' });
      expect(res.status).not.toBe(200);
    } finally {
      await stop(again);
    }
  });

  it('should refuse to start when ADMIN_PHONE_NUMBER belongs to a verified ordinary user', async () => {
    const { env, node } = await nodeWithoutAdministrator();
    const phone = uniquePhone();
    expect((await register(node, uniqueUsername('eve'), phone)).status).toBe(201);
    const verify = await new ApiClient(node.url).post('/auth/api/v1/verify-otp', {
      phone_number: phone,
      otp: lastCode(serverOf(node, env), phone, 'register'),
    });
    expect(verify.status).toBe(200);
    await stop(node);

    await expect(startNode({ ...env, ADMIN_PHONE_NUMBER: phone, ADMIN_PASSWORD })).rejects.toThrow(/ADMIN_PHONE_NUMBER/);

    const again = await startNode(env);
    try {
      const eve = await login(serverOf(again, env), phone, 'attacker-pass-1');
      const me = await eve.api.get('/auth/api/v1/user/me');
      expect(me.status).toBe(200);
      expect(JSON.stringify(me.body.data)).not.toContain('"admin"');
    } finally {
      await stop(again);
    }
  });

  it('should make the administrator with another username when `admin` is taken', async () => {
    const { env, node } = await nodeWithoutAdministrator();
    expect((await register(node, 'admin', uniquePhone())).status).toBe(201);
    await stop(node);

    const adminPhone = uniquePhone();
    const withAdmin = await startNode({ ...env, ADMIN_PHONE_NUMBER: adminPhone, ADMIN_PASSWORD });
    try {
      const admin = await login(serverOf(withAdmin, env), adminPhone, ADMIN_PASSWORD);
      expect(admin.username).toMatch(/^admin_[0-9a-f]{6}$/);
      // Only an administrator may list roles.
      const roles = await admin.api.get('/authorization/api/v1/roles');
      expect(roles.status).toBe(200);
    } finally {
      await stop(withAdmin);
    }
  });

  it('should keep an existing administrator as it is on restart (idempotent)', async () => {
    const adminPhone = uniquePhone();
    const { env, cleanup } = await testEnvironment({ ADMIN_PHONE_NUMBER: adminPhone, ADMIN_PASSWORD });
    cleanups.push(cleanup);
    const first = await startNode(env);
    const admin = await login(serverOf(first, env), adminPhone, ADMIN_PASSWORD);
    expect(admin.username).toBe('admin');
    await stop(first);
    const second = await startNode(env);
    try {
      const again = await login(serverOf(second, env), adminPhone, ADMIN_PASSWORD);
      expect(again.userId).toBe(admin.userId);
    } finally {
      await stop(second);
    }
  });
});
