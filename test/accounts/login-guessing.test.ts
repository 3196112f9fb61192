// Login guessing is limited per account as well as per address (CONTRACT §19): 10 failed logins
// for one account within 15 minutes, from any addresses, make its logins answer 429 with
// Retry-After, the right password included; a number with no account behaves exactly the same
// (CONTRACT §14). TRUST_PROXY lets each try come from its own X-Forwarded-For address, so the
// per-address `auth` limit never refuses them. With Redis (the server pass) two nodes share the
// count. The per-address limit counting an IPv6 client per /64 is in rate-limits.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, uniquePhone, type ApiResponse } from '../helpers/api.js';
import { startNode } from '../helpers/server.js';
import type { RunningService } from '../../service.js';
import { AUTH } from './fixtures.js';

const LIMIT = 10;
const WINDOW_SECONDS = 15 * 60;

const server = useTestServer({ TRUST_PROXY: '1' });
let addressCounter = 0;
/** A client address no earlier try used. */
const freshAddress = () => `198.51.${100 + Math.floor(addressCounter / 250)}.${(addressCounter++ % 250) + 1}`;

const loginFromNewAddress = (url: string, phone: string, password: string): Promise<ApiResponse> =>
  new ApiClient(url).post(`${AUTH}/login`, { phone_number: phone, password }, { headers: { 'x-forwarded-for': freshAddress() } });

/** What a client can see of an answer: status, error code, message, whether it says when to retry. */
const seen = (res: ApiResponse) => ({
  status: res.status,
  error_code: res.body?.error_code,
  message: res.body?.message,
  retryAfter: res.headers.get('retry-after') !== null,
});

function expectLocked(res: ApiResponse): void {
  expectErrorEnvelope(res, 429, 'auth.error.too_many_failed_logins');
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
}

describe('failed logins per account', () => {
  it('should answer 429 from the 11th wrong password of 40 addresses on, and to the right password too', async () => {
    const user = await registerAndLogin(server.current);
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 40; i++) answers.push(await loginFromNewAddress(server.url, user.phone, `wrong-password-${i}`));
    for (const res of answers.slice(0, LIMIT)) expectErrorEnvelope(res, 400, 'auth.error.invalid_credentials');
    for (const res of answers.slice(LIMIT)) expectLocked(res);
    expectLocked(await loginFromNewAddress(server.url, user.phone, user.password));
    // The account's own sessions go on; another account is not touched.
    expect((await user.api.get(`${AUTH}/user/me`)).status).toBe(200);
    const other = await registerAndLogin(server.current);
    expect((await loginFromNewAddress(server.url, other.phone, other.password)).status).toBe(200);
  });

  it('should answer a number with no account exactly as one with an account', async () => {
    const user = await registerAndLogin(server.current);
    const nobody = uniquePhone();
    const tries = async (phone: string) => {
      const answers = [];
      for (let i = 0; i < LIMIT + 2; i++) answers.push(seen(await loginFromNewAddress(server.url, phone, `wrong-password-${i}`)));
      return answers;
    };
    const forAccount = await tries(user.phone);
    const forNobody = await tries(nobody);
    expect(forNobody).toEqual(forAccount);
    expect(forAccount[LIMIT - 1].status).toBe(400);
    expect(forAccount[LIMIT]).toMatchObject({ status: 429, retryAfter: true });
  });

  it('should count a number in any spelling as one account', async () => {
    const user = await registerAndLogin(server.current);
    const national = `0${user.phone.slice(3)}`;
    for (let i = 0; i < LIMIT; i++) {
      const spelling = i % 2 ? national : user.phone;
      expectErrorEnvelope(await loginFromNewAddress(server.url, spelling, 'wrong-password'), 400, 'auth.error.invalid_credentials');
    }
    expectLocked(await loginFromNewAddress(server.url, national, user.password));
  });

  it('should let no more than 10 concurrent wrong passwords through', async () => {
    const user = await registerAndLogin(server.current);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => loginFromNewAddress(server.url, user.phone, `wrong-${i}`)));
    expect(answers.filter((res) => res.status === 400)).toHaveLength(LIMIT);
    for (const res of answers.filter((r) => r.status !== 400)) expectLocked(res);
  });

  it('should not count a right password, nor forget the wrong ones before it', async () => {
    const user = await registerAndLogin(server.current);
    for (let i = 0; i < LIMIT - 1; i++) expect((await loginFromNewAddress(server.url, user.phone, 'wrong-password')).status).toBe(400);
    expect((await loginFromNewAddress(server.url, user.phone, user.password)).status).toBe(200);
    expect((await loginFromNewAddress(server.url, user.phone, 'wrong-password')).status).toBe(400);
    expectLocked(await loginFromNewAddress(server.url, user.phone, 'wrong-password'));
  });
});

describe.skipIf(!process.env.TEST_REDIS_URL)('failed logins counted across nodes (Redis)', () => {
  let nodeB: RunningService;
  let dataDirB: string;

  beforeAll(async () => {
    dataDirB = fs.mkdtempSync(path.join(os.tmpdir(), 'revs-node-b-'));
    nodeB = await startNode({ ...server.current.env, DATA_DIR: dataDirB });
  }, 60_000);

  afterAll(async () => {
    await nodeB?.close();
    if (dataDirB) fs.rmSync(dataDirB, { recursive: true, force: true });
  });

  it('should lock the account after 10 failures spread over two nodes', async () => {
    const user = await registerAndLogin(server.current);
    for (let i = 0; i < LIMIT; i++) {
      const url = i % 2 ? nodeB.url : server.url;
      expectErrorEnvelope(await loginFromNewAddress(url, user.phone, 'wrong-password'), 400, 'auth.error.invalid_credentials');
    }
    expectLocked(await loginFromNewAddress(nodeB.url, user.phone, user.password));
    expectLocked(await loginFromNewAddress(server.url, user.phone, user.password));
  });
});
