// GET/PUT /user/me and PUT /user/avatar over the real server.
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { AUTH, avatarForm, makeBmp, makeImage, putAvatar } from './fixtures.js';

// A small image limit keeps the size tests cheap: 400 above it, 413 above twice it.
const MAX_IMAGE_BYTES = 200_000;

const server = useTestServer({ MAX_IMAGE_BYTES: String(MAX_IMAGE_BYTES) });
/** Alice and Bob are only read or refused here: their profiles keep their first state. */
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  alice = await registerAndLogin(server.current, { given_name: 'Alice', family_name: 'Nguyen' });
  bob = await registerAndLogin(server.current, { given_name: 'Bob', family_name: 'Tran' });
});
const newUser = (names: { given_name?: string; family_name?: string } = {}) => registerAndLogin(server.current, names);

const identity = (u: TestUser) => ({ 'x-user-id': u.userId, 'x-user-username': u.username });
const storedFile = (url: string) => {
  const prefix = `${server.current.service.config.publicBaseUrl}/media/`;
  expect(url.startsWith(prefix)).toBe(true);
  return path.join(server.current.service.config.mediaDir, decodeURIComponent(url.slice(prefix.length)));
};

describe('GET /user/me', () => {
  it('should fail with 401 missing_token without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).get(`${AUTH}/user/me`), 401, 'auth.error.missing_token');
  });

  it('should fail with 401 invalid_token for a garbage token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).get(`${AUTH}/user/me`, { token: 'abc.def.ghi' }), 401, 'auth.error.invalid_token');
  });

  it('should fail with 400 for a malformed user_id', async () => {
    const bad = expectErrorEnvelope(await alice.api.get(`${AUTH}/user/me?user_id=not-a-uuid`), 400);
    expect(bad.details?.field).toBe('user_id');
  });

  it('should fail with 404 not_found for an unknown user', async () => {
    expectErrorEnvelope(await alice.api.get(`${AUTH}/user/me?user_id=3f1c2a4e-8b7d-4c6e-9a1b-2c3d4e5f6a7b`), 404, 'user.error.not_found');
  });

  it('should succeed with every SPEC 2.4 field of the caller', async () => {
    const res = await alice.api.get(`${AUTH}/user/me`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toEqual({
      sub: alice.userId,
      username: alice.username,
      email: null,
      email_verified: false,
      phone_number: alice.phone,
      phone_number_verified: true,
      name: 'Alice Nguyen',
      given_name: 'Alice',
      family_name: 'Nguyen',
      picture: null,
      role: 'end_user',
      roles: ['end_user'],
      follower_number: 0,
      following_number: 0,
      is_following: false,
    });
  });

  it("should succeed with another user's statistics, without their phone or email", async () => {
    const viewer = await newUser();
    const shown = await newUser({ given_name: 'Bob', family_name: 'Tran' });
    await shown.api.put(`${AUTH}/user/me`, { email: 'bob@example.com' });
    expect((await viewer.api.post(`${AUTH}/users/${shown.userId}/follow`, undefined, { headers: { 'x-user-id': viewer.userId } })).status).toBe(200);
    const res = await viewer.api.get(`${AUTH}/user/me?user_id=${shown.userId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      sub: shown.userId,
      username: shown.username,
      name: 'Bob Tran',
      phone_number: null,
      email: null,
      follower_number: 1,
      following_number: 0,
      is_following: true,
    });
    const own = await shown.api.get(`${AUTH}/user/me`);
    expect(own.body.data).toMatchObject({ email: 'bob@example.com', phone_number: shown.phone, follower_number: 1, is_following: false });
    const reverse = await shown.api.get(`${AUTH}/user/me?user_id=${viewer.userId}`);
    expect(reverse.body.data).toMatchObject({ following_number: 1, is_following: false });
  });

  it('should succeed with the own profile for user_id = self (phone shown, is_following false)', async () => {
    const self = await alice.api.get(`${AUTH}/user/me?user_id=${alice.userId}`);
    expect(self.body.data).toMatchObject({ phone_number: alice.phone, is_following: false });
  });
});

describe('PUT /user/me', () => {
  it('should fail with 401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).put(`${AUTH}/user/me`, { given_name: 'X' }), 401);
  });

  it('should fail with 400 for an empty body, no body or a body that is not an object', async () => {
    expectErrorEnvelope(await alice.api.put(`${AUTH}/user/me`, {}), 400, 'validation.error');
    expectErrorEnvelope(await alice.api.request('PUT', `${AUTH}/user/me`), 400);
    expectErrorEnvelope(await alice.api.put(`${AUTH}/user/me`, [1, 2]), 400);
  });

  it('should fail with 400 for an unknown field (the role cannot be changed this way)', async () => {
    expectErrorEnvelope(await alice.api.put(`${AUTH}/user/me`, { role: 'admin' }), 400, 'validation.error');
    expect((await alice.api.get(`${AUTH}/user/me`)).body.data.role).toBe('end_user');
  });

  it('should fail with 400 for a wrongly typed, empty or too long name', async () => {
    expectErrorEnvelope(await alice.api.put(`${AUTH}/user/me`, { given_name: 42 }), 400, 'validation.error');
    expectErrorEnvelope(await alice.api.put(`${AUTH}/user/me`, { given_name: '' }), 400, 'validation.error');
    expectErrorEnvelope(await alice.api.put(`${AUTH}/user/me`, { given_name: 'x'.repeat(101) }), 400, 'validation.error');
  });

  it('should fail with 400 for a malformed email', async () => {
    const email = expectErrorEnvelope(await alice.api.put(`${AUTH}/user/me`, { email: 'not-an-email' }), 400, 'validation.error');
    expect(email.details?.field).toBe('email');
  });

  it('should succeed updating names and email (trimmed, lower-cased, unverified) with {message}', async () => {
    const user = await newUser();
    const res = await user.api.put(`${AUTH}/user/me`, { given_name: '  Chi ', family_name: 'Le', email: 'Chi.Le@Example.com' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, data: { message: expect.any(String) } });
    const me = await user.api.get(`${AUTH}/user/me`);
    expect(me.body.data).toMatchObject({ given_name: 'Chi', family_name: 'Le', name: 'Chi Le', email: 'chi.le@example.com', email_verified: false });
  });

  it('should succeed changing one field alone, leaving the others', async () => {
    const user = await newUser({ given_name: 'Chi', family_name: 'Le' });
    expect((await user.api.put(`${AUTH}/user/me`, { email: 'chi.le@example.com' })).status).toBe(200);
    expect((await user.api.put(`${AUTH}/user/me`, { family_name: 'Pham' })).status).toBe(200);
    expect((await user.api.get(`${AUTH}/user/me`)).body.data).toMatchObject({ given_name: 'Chi', family_name: 'Pham', email: 'chi.le@example.com' });
  });

  it('should succeed removing the email with null', async () => {
    const user = await newUser();
    expect((await user.api.put(`${AUTH}/user/me`, { email: 'chi.le@example.com' })).status).toBe(200);
    expect((await user.api.put(`${AUTH}/user/me`, { email: null })).status).toBe(200);
    expect((await user.api.get(`${AUTH}/user/me`)).body.data.email).toBeNull();
  });
});

describe('PUT /user/avatar', () => {
  it('should fail with 401 without a token', async () => {
    const png = await makeImage('png', 10, 10);
    expectErrorEnvelope(await putAvatar(new ApiClient(server.url), avatarForm(png, 'a.png'), identity(alice)), 401);
  });

  it('should fail with 400 when an identity header is missing or malformed', async () => {
    const png = await makeImage('png', 10, 10);
    const missing = expectErrorEnvelope(await putAvatar(alice.api, avatarForm(png, 'a.png'), { 'x-user-username': alice.username }), 400);
    expect(missing.details?.field).toBe('x-user-id');
    expectErrorEnvelope(await putAvatar(alice.api, avatarForm(png, 'a.png'), { 'x-user-id': alice.userId }), 400);
    expectErrorEnvelope(await putAvatar(alice.api, avatarForm(png, 'a.png'), { ...identity(alice), 'x-user-id': 'nope' }), 400);
  });

  it('should fail with 401 identity_mismatch when the identity headers name another user', async () => {
    const png = await makeImage('png', 10, 10);
    expectErrorEnvelope(await putAvatar(alice.api, avatarForm(png, 'a.png'), identity(bob)), 401, 'auth.error.identity_mismatch');
    expectErrorEnvelope(
      await putAvatar(alice.api, avatarForm(png, 'a.png'), { 'x-user-id': alice.userId, 'x-user-username': bob.username }),
      401,
      'auth.error.identity_mismatch',
    );
    expect((await bob.api.get(`${AUTH}/user/me`)).body.data.picture).toBeNull();
  });

  it('should fail with 400 file.error.missing without a file', async () => {
    const form = new FormData();
    form.append('note', 'no file here');
    expectErrorEnvelope(await putAvatar(alice.api, form, identity(alice)), 400, 'file.error.missing');
  });

  it('should fail with 400 for a file under another field name', async () => {
    const png = await makeImage('png', 10, 10);
    expectErrorEnvelope(await putAvatar(alice.api, avatarForm(png, 'a.png', 'image/png', 'picture'), identity(alice)), 400);
  });

  it('should fail with 415 for a JSON body', async () => {
    expectErrorEnvelope(await alice.api.put(`${AUTH}/user/avatar`, { avatar: 'data' }, { headers: identity(alice) }), 415);
  });

  it('should fail with 400 invalid_type for a text file posing as a PNG, and for a GIF', async () => {
    const text = expectErrorEnvelope(
      await putAvatar(alice.api, avatarForm(Buffer.from('hello, I am not an image '.repeat(20)), 'photo.png', 'image/png'), identity(alice)),
      400,
      'file.error.invalid_type',
    );
    expect(text.details?.field).toBe('avatar');
    const gif = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
    expectErrorEnvelope(await putAvatar(alice.api, avatarForm(gif, 'a.png', 'image/png'), identity(alice)), 400, 'file.error.invalid_type');
    expect((await alice.api.get(`${AUTH}/user/me`)).body.data.picture).toBeNull();
  });

  it('should fail with 400 for a corrupt PNG', async () => {
    const png = await makeImage('png', 300, 300);
    const truncated = png.subarray(0, 60);
    expectErrorEnvelope(await putAvatar(alice.api, avatarForm(truncated, 'a.png', 'image/png'), identity(alice)), 400, 'file.error');
    expect((await alice.api.get(`${AUTH}/user/me`)).body.data.picture).toBeNull();
  });

  it('should fail with 400 too_large above MAX_IMAGE_BYTES', async () => {
    const big = Buffer.alloc(MAX_IMAGE_BYTES + 1000, 7);
    expectErrorEnvelope(await putAvatar(alice.api, avatarForm(big, 'big.png'), identity(alice)), 400, 'file.error.too_large');
  });

  it('should fail with 413 above twice MAX_IMAGE_BYTES', async () => {
    const huge = Buffer.alloc(MAX_IMAGE_BYTES * 2 + 1000, 7);
    expectErrorEnvelope(await putAvatar(alice.api, avatarForm(huge, 'huge.png'), identity(alice)), 413);
  });

  it('should succeed storing a PNG as a WebP of at most 512×512 and answer its URL', async () => {
    const user = await newUser();
    const first = await putAvatar(user.api, avatarForm(await makeImage('png', 1200, 600), 'me.png', 'image/png'), identity(user));
    expect(first.status).toBe(200);
    const url: string = first.body.data.picture;
    expect(url).toMatch(new RegExp(`/media/avatars/${user.userId}/[0-9a-f-]{36}\\.webp$`));
    const meta = await sharp(fs.readFileSync(storedFile(url))).metadata();
    expect(meta.format).toBe('webp');
    expect([meta.width, meta.height]).toEqual([512, 256]);
    expect((await user.api.get(`${AUTH}/user/me`)).body.data.picture).toBe(url);
  });

  it('should succeed replacing the previous avatar file, without enlarging a small image', async () => {
    const user = await newUser();
    const first = await putAvatar(user.api, avatarForm(await makeImage('png', 1200, 600), 'me.png', 'image/png'), identity(user));
    expect(first.status).toBe(200);
    const file1 = storedFile(first.body.data.picture);
    const second = await putAvatar(user.api, avatarForm(await makeImage('jpeg', 100, 80), 'x.jpg', 'image/jpeg'), identity(user));
    expect(second.status).toBe(200);
    const file2 = storedFile(second.body.data.picture);
    expect(fs.existsSync(file2)).toBe(true);
    expect(fs.existsSync(file1)).toBe(false);
    const meta2 = await sharp(fs.readFileSync(file2)).metadata();
    expect([meta2.width, meta2.height]).toEqual([100, 80]);
  });

  it('should succeed with a WebP', async () => {
    const user = await newUser();
    expect((await putAvatar(user.api, avatarForm(await makeImage('webp', 64, 64), 'a.webp'), identity(user))).status).toBe(200);
  });

  it('should succeed with a BMP (decoded without libvips BMP support)', async () => {
    const user = await newUser();
    const bmpRes = await putAvatar(user.api, avatarForm(makeBmp(30, 20), 'a.bmp', 'image/bmp'), identity(user));
    expect(bmpRes.status).toBe(200);
    const { data, info } = await sharp(fs.readFileSync(storedFile(bmpRes.body.data.picture)))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([30, 20]);
    // Blue, opaque: the channel order and alpha survived the raw hand-over.
    expect(data[2]).toBeGreaterThan(200);
    expect(data[0]).toBeLessThan(40);
    if (info.channels === 4) expect(data[3]).toBe(255);
  });
});
