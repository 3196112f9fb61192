// GET/PUT /user/me and PUT /user/avatar over the real server.
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootServer, type TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { AUTH, avatarForm, makeBmp, makeImage, putAvatar } from './fixtures.js';

// A small image limit keeps the size tests cheap: 400 above it, 413 above twice it.
const MAX_IMAGE_BYTES = 200_000;

let server: TestServer;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  server = await bootServer({ MAX_IMAGE_BYTES: String(MAX_IMAGE_BYTES) });
  alice = await registerAndLogin(server, { given_name: 'Alice', family_name: 'Nguyen' });
  bob = await registerAndLogin(server, { given_name: 'Bob', family_name: 'Tran' });
});
afterAll(async () => {
  await server?.close();
});

const identity = (u: TestUser) => ({ 'x-user-id': u.userId, 'x-user-username': u.username });
const storedFile = (url: string) => {
  const prefix = `${server.service.config.publicBaseUrl}/media/`;
  expect(url.startsWith(prefix)).toBe(true);
  return path.join(server.service.config.mediaDir, decodeURIComponent(url.slice(prefix.length)));
};

describe('GET /user/me', () => {
  it('answers every SPEC 2.4 field of the caller', async () => {
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
      follower_number: 0,
      following_number: 0,
      is_following: false,
    });
  });

  it("reads another user's statistics without their phone or email", async () => {
    await bob.api.put(`${AUTH}/user/me`, { email: 'bob@example.com' });
    const follow = await alice.api.post(`${AUTH}/users/${bob.userId}/follow`, undefined, { headers: { 'x-user-id': alice.userId } });
    expect(follow.status).toBe(200);
    const res = await alice.api.get(`${AUTH}/user/me?user_id=${bob.userId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      sub: bob.userId,
      username: bob.username,
      name: 'Bob Tran',
      phone_number: null,
      email: null,
      follower_number: 1,
      following_number: 0,
      is_following: true,
    });
    const own = await bob.api.get(`${AUTH}/user/me`);
    expect(own.body.data).toMatchObject({ email: 'bob@example.com', phone_number: bob.phone, follower_number: 1, is_following: false });
    const reverse = await bob.api.get(`${AUTH}/user/me?user_id=${alice.userId}`);
    expect(reverse.body.data).toMatchObject({ following_number: 1, is_following: false });
    // user_id = self is the own profile (is_following false, phone shown).
    const self = await alice.api.get(`${AUTH}/user/me?user_id=${alice.userId}`);
    expect(self.body.data).toMatchObject({ phone_number: alice.phone, is_following: false });
  });

  it('answers 404 for an unknown user and 400 for a malformed id', async () => {
    expectErrorEnvelope(await alice.api.get(`${AUTH}/user/me?user_id=3f1c2a4e-8b7d-4c6e-9a1b-2c3d4e5f6a7b`), 404, 'user.error.not_found');
    const bad = expectErrorEnvelope(await alice.api.get(`${AUTH}/user/me?user_id=not-a-uuid`), 400);
    expect(bad.details?.field).toBe('user_id');
  });

  it('answers 401 without a token or with a garbage token', async () => {
    const anon = new ApiClient(server.url);
    expectErrorEnvelope(await anon.get(`${AUTH}/user/me`), 401, 'auth.error.missing_token');
    expectErrorEnvelope(await anon.get(`${AUTH}/user/me`, { token: 'abc.def.ghi' }), 401, 'auth.error.invalid_token');
  });
});

describe('PUT /user/me', () => {
  it('updates names and email; the answer is {message}', async () => {
    const user = await registerAndLogin(server);
    const res = await user.api.put(`${AUTH}/user/me`, { given_name: '  Chi ', family_name: 'Le', email: 'Chi.Le@Example.com' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, data: { message: expect.any(String) } });
    const me = await user.api.get(`${AUTH}/user/me`);
    expect(me.body.data).toMatchObject({ given_name: 'Chi', family_name: 'Le', name: 'Chi Le', email: 'chi.le@example.com', email_verified: false });
    // One field alone leaves the others.
    await user.api.put(`${AUTH}/user/me`, { family_name: 'Pham' });
    expect((await user.api.get(`${AUTH}/user/me`)).body.data).toMatchObject({ given_name: 'Chi', family_name: 'Pham', email: 'chi.le@example.com' });
    // null removes the email.
    expect((await user.api.put(`${AUTH}/user/me`, { email: null })).status).toBe(200);
    expect((await user.api.get(`${AUTH}/user/me`)).body.data.email).toBeNull();
  });

  it('refuses an empty body, unknown fields, wrong types, a bad email and no body', async () => {
    expectErrorEnvelope(await alice.api.put(`${AUTH}/user/me`, {}), 400, 'validation.error');
    expectErrorEnvelope(await alice.api.put(`${AUTH}/user/me`, { role: 'admin' }), 400, 'validation.error');
    expectErrorEnvelope(await alice.api.put(`${AUTH}/user/me`, { given_name: 42 }), 400, 'validation.error');
    expectErrorEnvelope(await alice.api.put(`${AUTH}/user/me`, { given_name: '' }), 400, 'validation.error');
    expectErrorEnvelope(await alice.api.put(`${AUTH}/user/me`, { given_name: 'x'.repeat(101) }), 400, 'validation.error');
    const email = expectErrorEnvelope(await alice.api.put(`${AUTH}/user/me`, { email: 'not-an-email' }), 400, 'validation.error');
    expect(email.details?.field).toBe('email');
    expectErrorEnvelope(await alice.api.request('PUT', `${AUTH}/user/me`), 400);
    expectErrorEnvelope(await alice.api.put(`${AUTH}/user/me`, [1, 2]), 400);
    // The role cannot be changed this way.
    expect((await alice.api.get(`${AUTH}/user/me`)).body.data.role).toBe('end_user');
  });

  it('answers 401 without a token', async () => {
    expectErrorEnvelope(await new ApiClient(server.url).put(`${AUTH}/user/me`, { given_name: 'X' }), 401);
  });
});

describe('PUT /user/avatar', () => {
  it('stores a PNG as a WebP of at most 512×512, answers its URL and replaces the previous file', async () => {
    const user = await registerAndLogin(server);
    const first = await putAvatar(user.api, avatarForm(await makeImage('png', 1200, 600), 'me.png', 'image/png'), identity(user));
    expect(first.status).toBe(200);
    const url1: string = first.body.data.picture;
    expect(url1).toMatch(new RegExp(`/media/avatars/${user.userId}/[0-9a-f-]{36}\\.webp$`));
    const file1 = storedFile(url1);
    const meta = await sharp(fs.readFileSync(file1)).metadata();
    expect(meta.format).toBe('webp');
    expect([meta.width, meta.height]).toEqual([512, 256]);
    expect((await user.api.get(`${AUTH}/user/me`)).body.data.picture).toBe(url1);

    const second = await putAvatar(user.api, avatarForm(await makeImage('jpeg', 100, 80), 'x.jpg', 'image/jpeg'), identity(user));
    expect(second.status).toBe(200);
    const file2 = storedFile(second.body.data.picture);
    expect(fs.existsSync(file2)).toBe(true);
    expect(fs.existsSync(file1)).toBe(false);
    // Small images are not enlarged.
    const meta2 = await sharp(fs.readFileSync(file2)).metadata();
    expect([meta2.width, meta2.height]).toEqual([100, 80]);
  });

  it('accepts WebP and BMP (decoded without libvips BMP support)', async () => {
    const user = await registerAndLogin(server);
    const webp = await putAvatar(user.api, avatarForm(await makeImage('webp', 64, 64), 'a.webp'), identity(user));
    expect(webp.status).toBe(200);
    const bmpRes = await putAvatar(user.api, avatarForm(makeBmp(30, 20), 'a.bmp', 'image/bmp'), identity(user));
    expect(bmpRes.status).toBe(200);
    const file = storedFile(bmpRes.body.data.picture);
    const { data, info } = await sharp(fs.readFileSync(file)).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([30, 20]);
    // Blue, opaque: the channel order and alpha survived the raw hand-over.
    expect(data[2]).toBeGreaterThan(200);
    expect(data[0]).toBeLessThan(40);
    if (info.channels === 4) expect(data[3]).toBe(255);
  });

  it('refuses a text file posing as a PNG, a GIF and a corrupt PNG (400)', async () => {
    const text = expectErrorEnvelope(
      await putAvatar(alice.api, avatarForm(Buffer.from('hello, I am not an image '.repeat(20)), 'photo.png', 'image/png'), identity(alice)),
      400,
      'file.error.invalid_type',
    );
    expect(text.details?.field).toBe('avatar');
    const gif = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
    expectErrorEnvelope(await putAvatar(alice.api, avatarForm(gif, 'a.png', 'image/png'), identity(alice)), 400, 'file.error.invalid_type');
    const png = await makeImage('png', 300, 300);
    const truncated = png.subarray(0, 60);
    expectErrorEnvelope(await putAvatar(alice.api, avatarForm(truncated, 'a.png', 'image/png'), identity(alice)), 400, 'file.error');
    expect((await alice.api.get(`${AUTH}/user/me`)).body.data.picture).toBeNull();
  });

  it('answers 400 above MAX_IMAGE_BYTES and 413 above twice that', async () => {
    const big = Buffer.alloc(MAX_IMAGE_BYTES + 1000, 7);
    expectErrorEnvelope(await putAvatar(alice.api, avatarForm(big, 'big.png'), identity(alice)), 400, 'file.error.too_large');
    const huge = Buffer.alloc(MAX_IMAGE_BYTES * 2 + 1000, 7);
    expectErrorEnvelope(await putAvatar(alice.api, avatarForm(huge, 'huge.png'), identity(alice)), 413);
  });

  it('requires the identity headers of the caller', async () => {
    const png = await makeImage('png', 10, 10);
    const missing = expectErrorEnvelope(await putAvatar(alice.api, avatarForm(png, 'a.png'), { 'x-user-username': alice.username }), 400);
    expect(missing.details?.field).toBe('x-user-id');
    expectErrorEnvelope(await putAvatar(alice.api, avatarForm(png, 'a.png'), { 'x-user-id': alice.userId }), 400);
    expectErrorEnvelope(await putAvatar(alice.api, avatarForm(png, 'a.png'), { ...identity(alice), 'x-user-id': 'nope' }), 400);
    expectErrorEnvelope(await putAvatar(alice.api, avatarForm(png, 'a.png'), identity(bob)), 401, 'auth.error.identity_mismatch');
    expectErrorEnvelope(
      await putAvatar(alice.api, avatarForm(png, 'a.png'), { 'x-user-id': alice.userId, 'x-user-username': bob.username }),
      401,
      'auth.error.identity_mismatch',
    );
    expect((await bob.api.get(`${AUTH}/user/me`)).body.data.picture).toBeNull();
  });

  it('refuses a missing file, another field name, JSON and no token', async () => {
    const form = new FormData();
    form.append('note', 'no file here');
    expectErrorEnvelope(await putAvatar(alice.api, form, identity(alice)), 400, 'file.error.missing');
    const png = await makeImage('png', 10, 10);
    expectErrorEnvelope(await putAvatar(alice.api, avatarForm(png, 'a.png', 'image/png', 'picture'), identity(alice)), 400);
    expectErrorEnvelope(await alice.api.put(`${AUTH}/user/avatar`, { avatar: 'data' }, { headers: identity(alice) }), 415);
    expectErrorEnvelope(await putAvatar(new ApiClient(server.url), avatarForm(png, 'a.png'), identity(alice)), 401);
  });
});
