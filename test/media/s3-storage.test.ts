// Media in an S3 bucket (CONTRACT §27) over the real server and a real S3 API server (moto, started
// by the test setup): every stored file is an object in the bucket and nothing of it stays on the
// node's disk; /media serves from the bucket with ranges and validators; processing reads the
// original from the bucket and writes the rendition there; a store that goes away answers 503 to
// uploads and reads and makes processing wait; erasure leaves no object behind. The node reaches
// the store through a TCP proxy of the test's, which is closed to take the store away.
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootServer, type TestServer } from '../helpers/server.js';
import { expectErrorEnvelope, registerAndLogin, type TestUser } from '../helpers/api.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { S3_SKIP_MESSAGE, createTestBucket, s3Available, s3Endpoint, type TestBucket } from '../helpers/s3-server.js';
import { avatarForm, putAvatar } from '../accounts/fixtures.js';
import { execFileSync } from 'node:child_process';
import { canMountTmpfs } from './tiny-storage.js';
import { chunkedPatch, createUpload, headUpload, patchUpload, tusRequest } from './resumable-helpers.js';
import { UPLOAD, contentVideo, createContent, form, latestJob, makeImage, makePdf, makeVideo, onServer, scratchDir, waitForJobEnd } from './media-helpers.js';

if (!s3Available()) console.warn(S3_SKIP_MESSAGE);

const scratch = scratchDir();

/** Polls `read` until `done` holds (the test's timeout bounds it). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every file left under a directory (relative paths); [] when it does not exist. */
const filesUnder = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    : [];

/** Bytes that sniff as an MP4 (the attached form checks the type only; processing would refuse them). */
const mp4Posing = (size: number) => {
  const ftyp = Buffer.from([0, 0, 0, 0x18, ...Buffer.from('ftypmp42'), 0, 0, 0, 0, ...Buffer.from('mp42isom')]);
  return Buffer.concat([ftyp, Buffer.alloc(size - ftyp.length, 7)]);
};

describe.skipIf(!s3Available())('media in an S3 bucket (MEDIA_STORAGE=s3)', () => {
  let bucket: TestBucket;
  let proxy: TcpProxy;
  let server: TestServer;
  let owner: TestUser;
  let clip: Buffer;

  /** Takes the store away (connections cut, new ones refused) and brings it back. */
  const storeDown = () => proxy.close();
  const storeUp = async () => {
    proxy = await proxy.reopen();
  };

  beforeAll(async () => {
    bucket = await createTestBucket();
    proxy = await TcpProxy.before(s3Endpoint(), 80);
    server = await bootServer({ VIDEO_WORKERS: '1', ...bucket.env(`http://127.0.0.1:${proxy.port}`) });
    owner = await registerAndLogin(server);
    clip = await makeVideo(path.join(scratch, 'clip.mp4'), { seconds: 2, size: '320x240' });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('should keep uploads as objects in the bucket and serve them from it with ranges and validators', async () => {
    const png = await makeImage('png', 80, 60);
    const image = await owner.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'image' },
        { name: 'file', value: png, filename: 'a.png' },
      ]),
    });
    expect(image.status, image.text).toBe(201);
    const video = await owner.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'video' },
        { name: 'file', value: clip, filename: 'c.mp4' },
      ]),
    });
    expect(video.status, video.text).toBe(201);
    const keys = await bucket.keys();
    const videoKey = new URL(video.body.data.url).pathname.replace(/^\/media\//, '');
    expect(keys).toContain(videoKey);
    expect(keys).toContain(new URL(image.body.data.url).pathname.replace(/^\/media\//, ''));
    // Nothing of it on the node's disk: no media directory, no scratch file left.
    expect(fs.existsSync(server.service.config.mediaDir)).toBe(false);
    expect(filesUnder(server.service.config.tmpDir)).toEqual([]);

    const url = onServer(server.url, video.body.data.url);
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('video/mp4');
    expect(whole.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await whole.arrayBuffer()).equals(clip)).toBe(true);
    const etag = whole.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(whole.headers.get('last-modified')).toBeTruthy();

    const part = await fetch(url, { headers: { range: 'bytes=100-1099' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-1099/${clip.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(clip.subarray(100, 1100))).toBe(true);
    const tail = await fetch(url, { headers: { range: 'bytes=-10' } });
    expect(Buffer.from(await tail.arrayBuffer()).equals(clip.subarray(clip.length - 10))).toBe(true);
    const unsatisfiable = await fetch(url, { headers: { range: `bytes=${clip.length}-` } });
    expect(unsatisfiable.status).toBe(416);
    expect(unsatisfiable.headers.get('content-range')).toBe(`bytes */${clip.length}`);
    expect((await fetch(url, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe(String(clip.length));
    expectErrorEnvelope(await owner.api.get(`/media/uploads/${owner.userId}/00000000-0000-4000-8000-000000000000.mp4`), 404, 'media.error.not_found');
  });

  it('should process a video read from the bucket into a rendition in the bucket, leaving nothing on the node', { timeout: 120_000 }, async () => {
    const contentId = await createContent(owner);
    const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: clip, filename: 'clip.mp4' }]) });
    expect(res.status, res.text).toBe(200);
    expect(await waitForJobEnd(server.service, contentId)).toMatchObject({ status: 'completed' });
    const { video } = await contentVideo(server.service, contentId);
    const keys = (await bucket.keys()).filter((k) => k.startsWith(`content/${contentId}/`));
    expect(keys).toContain(`content/${contentId}/original.mp4`);
    expect(keys).toContain(video.playlist_path);
    expect(keys).toContain(video.thumbnail_path);
    expect(keys.filter((k) => k.endsWith('.ts')).length).toBeGreaterThanOrEqual(1);
    expect(filesUnder(server.service.config.tmpDir)).toEqual([]);

    const master = await fetch(`${server.url}/media/${video.playlist_path}`);
    expect(master.status).toBe(200);
    expect(master.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    const variantRel = (await master.text())
      .split('\n')
      .find((l) => l.trim().endsWith('.m3u8'))!
      .trim();
    const variantUrl = new URL(variantRel, `${server.url}/media/${video.playlist_path}`);
    const segmentRel = (await (await fetch(variantUrl)).text())
      .split('\n')
      .find((l) => l.trim().endsWith('.ts'))!
      .trim();
    const segment = await fetch(new URL(segmentRel, variantUrl));
    expect(segment.status).toBe(200);
    expect(Buffer.from(await segment.arrayBuffer())[0]).toBe(0x47);
  });

  it('should put a longer rendition in the bucket segment by segment, every segment its playlist names', { timeout: 180_000 }, async () => {
    const long = await makeVideo(path.join(scratch, 'long.mp4'), { seconds: 30, size: '320x240' });
    const contentId = await createContent(owner);
    const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: long, filename: 'long.mp4' }]) });
    expect(res.status, res.text).toBe(200);
    expect(await waitForJobEnd(server.service, contentId)).toMatchObject({ status: 'completed' });
    const { video } = await contentVideo(server.service, contentId);
    const hls = path.posix.dirname(video.playlist_path);
    const variant = await (await fetch(`${server.url}/media/${hls}/240p/index.m3u8`)).text();
    const named = variant
      .split('\n')
      .filter((l) => l.endsWith('.ts'))
      .map((l) => `${hls}/240p/${l}`);
    expect(named.length).toBeGreaterThanOrEqual(7);
    const stored = (await bucket.keys()).filter((k) => k.startsWith(`${hls}/240p/`) && k.endsWith('.ts'));
    expect(stored).toEqual([...named].sort());
    expect(filesUnder(server.service.config.tmpDir)).toEqual([]);
  });

  it('should name the store in /readyz and count its requests in the metrics', async () => {
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect((await ready.json()).media_storage).toBe(`s3:${bucket.name}@127.0.0.1:${proxy.port}`);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/media_store_requests_total\{op="put"\} [1-9]/);
    expect(metrics).toMatch(/media_store_requests_total\{op="get"\} [1-9]/);
  });

  it('should answer 503 to uploads and reads while the store is away, with nothing half-written', async () => {
    const png = await makeImage('png', 40, 30);
    const kept = await owner.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'image' },
        { name: 'file', value: png, filename: 'k.png' },
      ]),
    });
    expect(kept.status).toBe(201);
    const before = await bucket.keys();
    await storeDown();
    try {
      const refused = await owner.api.request('POST', UPLOAD, {
        rawBody: form([
          { name: 'type', value: 'image' },
          { name: 'file', value: png, filename: 'refused.png' },
        ]),
      });
      expectErrorEnvelope(refused, 503, 'media.error.storage_unavailable');
      const pdf = await owner.api.request('POST', UPLOAD, {
        rawBody: form([
          { name: 'type', value: 'document' },
          { name: 'file', value: makePdf(), filename: 'd.pdf' },
        ]),
      });
      expectErrorEnvelope(pdf, 503, 'media.error.storage_unavailable');
      const avatar = await putAvatar(owner.api, avatarForm(png, 'a.png'), { 'x-user-id': owner.userId, 'x-user-username': owner.username });
      expectErrorEnvelope(avatar, 503, 'media.error.storage_unavailable');
      const read = await fetch(onServer(server.url, kept.body.data.url));
      expect(read.status).toBe(503);
      expect((await read.json()).error_code).toBe('media.error.storage_unavailable');
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(503);
      expect((await ready.json()).message).toContain(bucket.name);
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toMatch(/media_store_errors_total\{op="(put|head)"\} [1-9]/);
    } finally {
      await storeUp();
    }
    // No upload record for what was refused, and no object.
    const rows = await server.service.app.database.rows<{ n: number }>(
      sql`select count(*)::int as n from uploaded_files where user_id = ${owner.userId} and original_name in ('refused.png', 'd.pdf')`,
    );
    expect(rows[0].n).toBe(0);
    expect(await bucket.keys()).toEqual(before);
    expect(filesUnder(server.service.config.tmpDir)).toEqual([]);
    expect((await fetch(onServer(server.url, kept.body.data.url))).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('should leave neither an object nor parts when the store goes away during a multipart upload', { timeout: 90_000 }, async () => {
    const contentId = await createContent(owner);
    const big = mp4Posing(12 * 1024 * 1024);
    // Held from the second part on, then cut: the first part may be in, the upload is not.
    proxy.holdOnClientText('partNumber=2');
    const upload = owner.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: big, filename: 'big.mp4' }]) });
    await until(
      async () => proxy.held,
      (held) => held,
    );
    await storeDown();
    const res = await upload;
    await storeUp();
    expectErrorEnvelope(res, 503, 'media.error.storage_unavailable');
    expect((await contentVideo(server.service, contentId)).video?.original_path ?? null).toBeNull();
    expect(await latestJob(server.service, contentId)).toBeNull();
    expect((await bucket.keys()).filter((k) => k.startsWith(`content/${contentId}/`))).toEqual([]);
    // The parts of the failed upload are aborted once the store answers again.
    await until(
      () => bucket.openMultipartUploads(),
      (n) => n === 0,
    );
    expect(filesUnder(server.service.config.tmpDir)).toEqual([]);
  });

  it('should make processing wait while the store is away and finish once it is back, the attempt not counted', { timeout: 120_000 }, async () => {
    const contentId = await createContent(owner);
    // The worker's read of the original is held, then the store goes away.
    proxy.holdOnClientText(`GET /${bucket.name}/content/${contentId}/original.mp4`);
    const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: clip, filename: 'clip.mp4' }]) });
    expect(res.status, res.text).toBe(200);
    await until(
      async () => proxy.held,
      (held) => held,
    );
    await storeDown();
    const waiting = await until(
      () => latestJob(server.service, contentId),
      (job) => job?.last_error?.startsWith('media store unavailable') === true,
    );
    expect(waiting).toMatchObject({ status: 'queued', attempts: 0 });
    expect((await contentVideo(server.service, contentId)).video.status).toBe('processing');
    await storeUp();
    expect(await waitForJobEnd(server.service, contentId)).toMatchObject({ status: 'completed', attempts: 1 });
    expect(filesUnder(server.service.config.tmpDir)).toEqual([]);
  });

  it('should keep a tus upload in the bucket, answer 503 while the store is away, and continue it after', { timeout: 90_000 }, async () => {
    const contentId = await createContent(owner);
    const half = Math.floor(clip.length / 2);
    const created = await createUpload(
      server.url,
      owner.token,
      clip.length,
      { content_id: contentId, filename: 'tus.mp4', filetype: 'video/mp4' },
      clip.subarray(0, half),
    );
    expect(created.status, created.text).toBe(201);
    const id = created.location.split('/').pop()!;
    expect((await bucket.keys()).some((k) => k.startsWith(id))).toBe(true);
    await storeDown();
    try {
      const head = await headUpload(server.url, owner.token, created.location);
      expect(head.status).toBe(503);
      const patch = await patchUpload(server.url, owner.token, created.location, half, clip.subarray(half));
      expect(patch.status).toBe(503);
      expect(patch.body).toMatchObject({ success: false, error_code: 'media.error.storage_unavailable' });
    } finally {
      await storeUp();
    }
    expect((await headUpload(server.url, owner.token, created.location)).headers.get('upload-offset')).toBe(String(half));
    const rest = await patchUpload(server.url, owner.token, created.location, half, clip.subarray(half));
    expect(rest.status, rest.text).toBe(204);
    const original = await fetch(`${server.url}/media/content/${contentId}/original.mp4`);
    expect(Buffer.from(await original.arrayBuffer()).equals(clip)).toBe(true);
    expect((await bucket.keys()).filter((k) => k.startsWith(id))).toEqual([]);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/media_store_requests_total\{op="tus"\} [1-9]/);
    expect(metrics).toMatch(/media_store_errors_total\{op="tus"\} [1-9]/);
    // The video's processing works on a scratch copy; once it is done nothing is left on the node.
    expect(await waitForJobEnd(server.service, contentId)).toMatchObject({ status: 'completed' });
    expect(filesUnder(server.service.config.tmpDir)).toEqual([]);
  });

  it('should answer a chunked PATCH past Upload-Length with 413 and go on serving', async () => {
    const contentId = await createContent(owner);
    const half = Math.floor(clip.length / 2);
    const { location } = await createUpload(
      server.url,
      owner.token,
      clip.length,
      { content_id: contentId, filename: 'over.mp4', filetype: 'video/mp4' },
      clip.subarray(0, half),
    );
    const answer = await chunkedPatch(server.url, owner.token, location, half, [clip.subarray(half), Buffer.alloc(500, 1)]);
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ success: false, error_code: 'upload.error.length_exceeded' });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    expect((await tusRequest(server.url, 'DELETE', location, { token: owner.token })).status).toBe(204);
  });

  it.skipIf(!canMountTmpfs())('should answer 507 to a chunked PATCH when the scratch disk it waits on is full, and keep none of it', async () => {
    const contentId = await createContent(owner);
    const half = Math.floor(clip.length / 2);
    const { location } = await createUpload(
      server.url,
      owner.token,
      clip.length,
      { content_id: contentId, filename: 'full.mp4', filetype: 'video/mp4' },
      clip.subarray(0, half),
    );
    // The chunked body waits in this folder before it goes to the bucket: a full 64 KiB tmpfs there.
    const spool = server.service.app.media.scratchFor('.resumable-chunked');
    fs.mkdirSync(spool, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', spool], { stdio: 'ignore' });
    try {
      const filler = fs.openSync(path.join(spool, '.filler'), 'w');
      try {
        for (;;) fs.writeSync(filler, Buffer.alloc(4096, 1));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        fs.closeSync(filler);
      }
      const answer = await chunkedPatch(server.url, owner.token, location, half, [clip.subarray(half)]);
      expectErrorEnvelope(answer, 507, 'media.error.storage_unavailable');
      expect(fs.readdirSync(spool)).toEqual(['.filler']);
    } finally {
      execFileSync('umount', ['-l', spool], { stdio: 'ignore' });
    }
    expect((await headUpload(server.url, owner.token, location)).headers.get('upload-offset')).toBe(String(half));
    expect((await tusRequest(server.url, 'DELETE', location, { token: owner.token })).status).toBe(204);
  });

  it('should leave no object of an erased account in the bucket, nor of a deleted item', { timeout: 120_000 }, async () => {
    const alice = await registerAndLogin(server);
    const png = await makeImage('png', 64, 64);
    expect((await putAvatar(alice.api, avatarForm(png, 'a.png'), { 'x-user-id': alice.userId, 'x-user-username': alice.username })).status).toBe(200);
    const doc = await alice.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'document' },
        { name: 'file', value: makePdf(), filename: 'deed.pdf' },
      ]),
    });
    expect(doc.status).toBe(201);
    const kept = await createContent(alice);
    expect((await alice.api.request('POST', `${UPLOAD}?id=${kept}`, { rawBody: form([{ name: 'files', value: clip, filename: 'k.mp4' }]) })).status).toBe(200);
    expect(await waitForJobEnd(server.service, kept)).toMatchObject({ status: 'completed' });
    const dropped = await createContent(alice);
    expect((await alice.api.request('POST', `${UPLOAD}?id=${dropped}`, { rawBody: form([{ name: 'files', value: clip, filename: 'd.mp4' }]) })).status).toBe(
      200,
    );
    expect(await waitForJobEnd(server.service, dropped)).toMatchObject({ status: 'completed' });
    const exported = await alice.api.post('/auth/api/v1/user/export', {});
    expect(exported.status, exported.text).toBe(202);
    const exportId: string = exported.body.data.export_id;
    await until(
      () => alice.api.get(`/auth/api/v1/user/export/${exportId}`),
      (r) => r.body?.data?.status === 'ready',
    );
    const zip = await fetch(`${server.url}/auth/api/v1/user/export/${exportId}/download`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(zip.status).toBe(200);
    expect(
      Buffer.from(await zip.arrayBuffer())
        .subarray(0, 2)
        .toString(),
    ).toBe('PK');

    const mine = (keys: string[]) => keys.filter((k) => k.includes(alice.userId) || k.includes(kept) || k.includes(dropped) || k.includes(exportId));
    const before = mine(await bucket.keys());
    expect(before.some((k) => k.startsWith(`avatars/${alice.userId}/`))).toBe(true);
    expect(before).toContain(`.exports/${exportId}.zip`);
    expect(before.filter((k) => k.startsWith(`content/${dropped}/`)).length).toBeGreaterThan(3);

    // A deleted item's objects go at once.
    expect((await alice.api.delete(`/api/v1/content/${dropped}`)).status).toBe(200);
    expect((await bucket.keys()).filter((k) => k.startsWith(`content/${dropped}/`))).toEqual([]);

    // Erasure: nothing of Alice is left but the empty withdrawal markers of her items.
    expect((await alice.api.request('DELETE', '/auth/api/v1/user/me', { body: { password: alice.password } })).status).toBe(202);
    await until(
      () => server.service.app.database.rows<{ finished_at: Date | null }>(sql`select finished_at from account_erasures where user_id = ${alice.userId}`),
      (rows) => Boolean(rows[0]?.finished_at),
    );
    expect(mine(await bucket.keys())).toEqual([`.withdrawn/${dropped}`, `.withdrawn/${kept}`].sort());
  });
});

describe.skipIf(!s3Available())('media behind MEDIA_PUBLIC_BASE_URL (the bucket or a CDN)', () => {
  let bucket: TestBucket;
  let server: TestServer;
  let owner: TestUser;
  let publicBase: string;

  beforeAll(async () => {
    bucket = await createTestBucket();
    // Public reads of the public prefixes, as docs/operations.md has ops set it; documents and exports stay private.
    await bucket.allowPublicReads(['uploads/*.jpg', 'uploads/*.png', 'uploads/*.webp', 'uploads/*.mp4', 'content/*', 'avatars/*']);
    publicBase = `${s3Endpoint()}/${bucket.name}`;
    server = await bootServer({ VIDEO_WORKERS: '0', ...bucket.env(), MEDIA_PUBLIC_BASE_URL: publicBase, MEDIA_SIGNED_URL_SECONDS: '60' });
    owner = await registerAndLogin(server);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  it('should point public media at the public address and send private files through short-lived signed URLs', async () => {
    const png = await makeImage('png', 30, 20);
    const image = await owner.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'image' },
        { name: 'file', value: png, filename: 'p.png' },
      ]),
    });
    expect(image.status).toBe(201);
    expect(image.body.data.url.startsWith(`${publicBase}/uploads/${owner.userId}/`)).toBe(true);
    const direct = await fetch(image.body.data.url);
    expect(direct.status).toBe(200);
    expect(direct.headers.get('content-type')).toBe('image/png');

    // A document keeps its /media address, which redirects to a signed URL of the store.
    const pdf = makePdf();
    const doc = await owner.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'document' },
        { name: 'file', value: pdf, filename: 'deed.pdf' },
      ]),
    });
    expect(doc.status).toBe(201);
    expect(doc.body.data.url.startsWith(`${server.service.config.publicBaseUrl}/media/`)).toBe(true);
    // The document is not readable at the bucket's public address.
    expect((await fetch(`${publicBase}/${new URL(doc.body.data.url).pathname.replace(/^\/media\//, '')}`)).status).toBe(403);
    const redirect = await fetch(onServer(server.url, doc.body.data.url), { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const signed = new URL(redirect.headers.get('location')!);
    expect(signed.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(signed.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    const bytes = await fetch(signed);
    expect(bytes.status).toBe(200);
    expect(Buffer.from(await bytes.arrayBuffer()).equals(pdf)).toBe(true);
    // The store is asked to answer it as a download (moto does not echo the header back).
    expect(signed.searchParams.get('response-content-disposition')).toContain('attachment');
  });
});
