// Resumable uploads (tus 1.0, CONTRACT §24) over the real service, with raw requests and with
// tus-js-client (a real tus client, in Node): discovery and CORS, the refusals (token, version,
// metadata, size, other users, offsets, content type, two writers, refused files), then a video
// whose transfer is cut off mid-chunk and resumed from the offset the server reports until the
// item is `completed`, bytes kept up to the last one received, extra media, termination.
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { mediaInBucket, storedMedia } from '../helpers/stored-media.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import { sendRaw } from '../fuzz/raw-http.js';
import { registerAndLogin, type TestUser } from '../helpers/api.js';
import { contentVideo, createContent, fakeMp4, latestJob, makeImage, makeVideo, manifestPosingAsMp4, scratchDir, waitForJobEnd } from './media-helpers.js';
import {
  RESUMABLE,
  chunkedPatch,
  createUpload,
  cuttingProxy,
  headUpload,
  leaseTaken,
  metadataHeader,
  offsetReaches,
  openPatch,
  patchUpload,
  resumableFiles,
  tusRequest,
  uploadWithClient,
  type TusAnswer,
} from './resumable-helpers.js';

const scratch = scratchDir();
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** Asserts the §7 envelope (and tus's version header) on an error answer; returns the envelope. */
function expectTusError(answer: TusAnswer, status: number, code: string) {
  expect({ status: answer.status, body: answer.body }).toMatchObject({ status, body: { success: false, error_code: code } });
  expect(typeof answer.body.message).toBe('string');
  expect(Number.isNaN(Date.parse(answer.body.timestamp))).toBe(false);
  expect(answer.headers.get('tus-resumable')).toBe('1.0.0');
  expect(answer.headers.get('content-type')).toContain('application/json');
  return answer.body as { error_code: string; details?: { field: string; constraint: string } };
}

describe('resumable uploads (tus)', () => {
  const booted = useTestServer({ VIDEO_WORKERS: '1' });
  let owner: TestUser;
  let other: TestUser;
  let video: Buffer;

  beforeAll(async () => {
    [owner, other] = await Promise.all([registerAndLogin(booted.current), registerAndLogin(booted.current)]);
    video = await makeVideo(path.join(scratch, 'tour.mp4'), { seconds: 2 });
  });

  const url = () => booted.url;
  const node = () => booted.current.service;
  const mainVideo = (contentId: string) => ({ content_id: contentId, filename: 'tour.mp4', filetype: 'video/mp4' });
  const uploadRow = async (id: string) => (await node().app.database.rows(sql`select id from resumable_uploads where id = ${id}`))[0] ?? null;
  const idOf = (location: string) => location.split('/').pop()!;

  it('should answer OPTIONS with Tus-Version, Tus-Extension and Tus-Max-Size, and a browser preflight', async () => {
    const res = await fetch(url() + RESUMABLE, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization, tus-resumable, upload-offset, content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('tus-version')).toBe('1.0.0');
    expect(res.headers.get('tus-extension')?.split(',')).toEqual(['creation', 'creation-with-upload', 'termination', 'expiration']);
    expect(res.headers.get('tus-max-size')).toBe(String(500 * 1024 * 1024));
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(res.headers.get('access-control-allow-headers')).toContain('upload-offset');
    // What a browser client reads from the answers must be exposed.
    for (const header of ['Location', 'Upload-Offset', 'Upload-Expires', 'Tus-Resumable']) {
      expect(res.headers.get('access-control-expose-headers')).toContain(header);
    }
  });

  it('should refuse requests without a valid bearer token (401)', async () => {
    const contentId = await createContent(owner);
    expectTusError(await createUpload(url(), null, video.length, mainVideo(contentId)), 401, 'auth.error.missing_token');
    expectTusError(await createUpload(url(), 'forged.token.value', video.length, mainVideo(contentId)), 401, 'auth.error.invalid_token');
    const created = await createUpload(url(), owner.token, video.length, mainVideo(contentId));
    expect(created.status).toBe(201);
    expectTusError(await tusRequest(url(), 'GET', created.location), 404, 'route.error.not_found');
    expect((await headUpload(url(), null, created.location)).status).toBe(401);
    expectTusError(await patchUpload(url(), null, created.location, 0, video.subarray(0, 10)), 401, 'auth.error.missing_token');
    expect(Number((await headUpload(url(), owner.token, created.location)).headers.get('upload-offset'))).toBe(0);
  });

  it('should refuse a request without Tus-Resumable: 1.0.0 (412)', async () => {
    const contentId = await createContent(owner);
    const answer = await tusRequest(url(), 'POST', RESUMABLE, {
      token: owner.token,
      headers: { 'Tus-Resumable': '0.2.2', 'Upload-Length': '10', 'Upload-Metadata': metadataHeader(mainVideo(contentId)) },
    });
    expect(expectTusError(answer, 412, 'upload.error.unsupported_version').details?.field).toBe('Tus-Resumable');
    expect(answer.headers.get('tus-version')).toBe('1.0.0');
    const res = await fetch(url() + RESUMABLE, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'Upload-Length': '10', 'Upload-Metadata': metadataHeader(mainVideo(contentId)) },
    });
    expect(res.status).toBe(412);
    expect((await res.json()).error_code).toBe('upload.error.unsupported_version');
  });

  it('should refuse creations the upload rules do not allow, keeping nothing', async () => {
    const contentId = await createContent(owner);
    const othersItem = await createContent(other);
    const before = (await resumableFiles(node())).length;
    const create = (size: number, metadata: Record<string, string>) => createUpload(url(), owner.token, size, metadata);

    expect(expectTusError(await create(100, { filename: 'a.mp4' }), 400, 'upload.error.invalid_metadata').details?.field).toBe('content_id');
    expectTusError(await create(100, mainVideo('not-a-uuid')), 400, 'file.error.invalid_content_id');
    expectTusError(await create(100, mainVideo('7c9e6679-7425-40de-944b-e07fc1f90ae7')), 404, 'content.error.not_found');
    expectTusError(await create(100, mainVideo(othersItem)), 403, 'file.error.not_owner');
    expectTusError(await create(0, mainVideo(contentId)), 400, 'file.error.empty_file');
    // Declared sizes above the multipart route's limits: a main video, an extra image.
    const tooLarge = expectTusError(await create(500 * 1024 * 1024 + 1, mainVideo(contentId)), 413, 'file.error.too_large');
    expect(tooLarge.details?.field).toBe('Upload-Length');
    expectTusError(await create(10 * 1024 * 1024 + 1, { content_id: contentId, topic_key: 'video_images_url' }), 413, 'file.error.too_large');
    // No declared size (deferred or missing), malformed metadata.
    const deferred = await tusRequest(url(), 'POST', RESUMABLE, {
      token: owner.token,
      headers: { 'Upload-Defer-Length': '1', 'Upload-Metadata': metadataHeader(mainVideo(contentId)) },
    });
    expectTusError(deferred, 400, 'upload.error.length_required');
    const missing = await tusRequest(url(), 'POST', RESUMABLE, { token: owner.token, headers: { 'Upload-Metadata': metadataHeader(mainVideo(contentId)) } });
    expectTusError(missing, 400, 'upload.error.length_required');
    const malformed = await tusRequest(url(), 'POST', RESUMABLE, {
      token: owner.token,
      headers: { 'Upload-Length': '10', 'Upload-Metadata': 'content_id !!!,,' },
    });
    expectTusError(malformed, 400, 'upload.error.invalid_header');

    expect((await resumableFiles(node())).length).toBe(before);
    expect(await node().app.database.rows(sql`select id from resumable_uploads where content_id in (${contentId}, ${othersItem})`)).toEqual([]);
  });

  it("should answer 404 to another user's requests on an upload, and to unknown ids", async () => {
    const contentId = await createContent(owner);
    const created = await createUpload(url(), owner.token, video.length, mainVideo(contentId));
    expect(created.status).toBe(201);
    expect((await patchUpload(url(), owner.token, created.location, 0, video.subarray(0, 1000))).status).toBe(204);

    expect((await headUpload(url(), other.token, created.location)).status).toBe(404);
    expectTusError(await patchUpload(url(), other.token, created.location, 1000, video.subarray(1000, 2000)), 404, 'upload.error.not_found');
    expectTusError(await tusRequest(url(), 'DELETE', created.location, { token: other.token }), 404, 'upload.error.not_found');
    expectTusError(
      await tusRequest(url(), 'DELETE', `${RESUMABLE}/7c9e6679-7425-40de-944b-e07fc1f90ae7`, { token: owner.token }),
      404,
      'upload.error.not_found',
    );
    expectTusError(await tusRequest(url(), 'DELETE', `${RESUMABLE}/..%2F..%2Fetc`, { token: owner.token }), 404, 'upload.error.not_found');

    const head = await headUpload(url(), owner.token, created.location);
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe('1000');
  });

  it('should answer a wrong Upload-Offset with 409 and the current offset, writing nothing', async () => {
    const contentId = await createContent(owner);
    const { location } = await createUpload(url(), owner.token, video.length, mainVideo(contentId));
    expect((await patchUpload(url(), owner.token, location, 0, video.subarray(0, 500))).status).toBe(204);

    for (const offset of [0, 400, 900]) {
      const answer = await patchUpload(url(), owner.token, location, offset, video.subarray(offset, offset + 100));
      expect(expectTusError(answer, 409, 'upload.error.offset_mismatch').details?.field).toBe('Upload-Offset');
      expect(answer.headers.get('upload-offset')).toBe('500');
    }
    expectTusError(
      await tusRequest(url(), 'PATCH', location, {
        token: owner.token,
        headers: { 'Upload-Offset': '500', 'Content-Type': 'application/octet-stream' },
        body: video.subarray(500, 600),
      }),
      415,
      'request.error.unsupported_media_type',
    );
    // An offset that is not a whole number, or bytes that are not text.
    for (const offset of ['500 apples', '-500', '\xec?\xec\xa4\xee\xaa?']) {
      const answer = await sendRaw(url(), {
        method: 'PATCH',
        target: location,
        headers: [
          ['Host', 'service'],
          ['Tus-Resumable', '1.0.0'],
          ['Authorization', `Bearer ${owner.token}`],
          ['Upload-Offset', offset],
          ['Content-Type', 'application/offset+octet-stream'],
          ['Content-Length', '100'],
        ],
        body: video.subarray(500, 600),
      });
      expect({ status: answer!.status, body: JSON.parse(answer!.text) }).toMatchObject({
        status: 400,
        body: { error_code: 'upload.error.invalid_header', details: { field: 'upload-offset' } },
      });
    }
    // A body that would go past the declared length.
    expectTusError(
      await patchUpload(url(), owner.token, location, 500, Buffer.concat([video.subarray(500), Buffer.alloc(10)])),
      413,
      'upload.error.length_exceeded',
    );
    expect((await headUpload(url(), owner.token, location)).headers.get('upload-offset')).toBe('500');
  });

  it('should answer a chunked PATCH that runs past Upload-Length with 413 in the envelope, keeping none of its bytes', async () => {
    const contentId = await createContent(owner);
    const png = await makeImage('png', 64, 48);
    const image = { content_id: contentId, topic_key: 'video_images_url', filename: 'room.png' };
    const { location } = await createUpload(url(), owner.token, png.length, image);
    const half = Math.floor(png.length / 2);
    expect((await patchUpload(url(), owner.token, location, 0, png.subarray(0, half))).status).toBe(204);

    // The rest of the file, then 500 bytes too many; then a body five times the whole length.
    for (const parts of [[png.subarray(half), Buffer.alloc(500, 1)], [Buffer.alloc(png.length * 5, 2)]]) {
      const answer = await chunkedPatch(url(), owner.token, location, half, parts);
      expect(expectTusError(answer, 413, 'upload.error.length_exceeded').details?.field).toBe('body');
      expect((await headUpload(url(), owner.token, location)).headers.get('upload-offset')).toBe(String(half));
      expect(await storedMedia(node()).resumableBytes(idOf(location))).toBe(half);
    }
    // The upload goes on from where it was.
    expect((await chunkedPatch(url(), owner.token, location, half, [png.subarray(half)])).status).toBe(204);
    expect(await resumableFiles(node())).not.toContain(idOf(location));
  });

  // Bucket only for now: on the disk this case keeps the whole Upload-Length (the disk store's
  // write, stopped by tus's limit after the file reached the length, never cuts it back: it waits
  // for its file stream's close). Left as a known issue of the local store (docs/media.md).
  it.skipIf(!mediaInBucket())(
    'should keep none of a chunked PATCH past Upload-Length even when it brought more than a part of the bucket (8 MiB)',
    { timeout: 120_000 },
    async () => {
      const contentId = await createContent(owner);
      const length = 9 * 1024 * 1024;
      const { location } = await createUpload(url(), owner.token, length, mainVideo(contentId));
      // 10 MiB in 1 MiB chunks. The last goes only once the node has passed the first 9 MiB to its
      // store (its progress says so): a whole 8 MiB part of the bucket before tus sees the body run past.
      const parts = Array.from({ length: 10 }, (_, i) => Buffer.alloc(1024 * 1024, i + 1));
      let passed = 0;
      const off = node().app.events.subscribe('upload.progress', (p) => {
        if (p.contentId === contentId) passed = Math.max(passed, p.offset);
      });
      const answer = await chunkedPatch(url(), owner.token, location, 0, parts, async () => {
        while (passed < length) await new Promise((r) => setTimeout(r, 20));
      }).finally(off);
      expect(expectTusError(answer, 413, 'upload.error.length_exceeded').details?.field).toBe('body');
      expect((await headUpload(url(), owner.token, location)).headers.get('upload-offset')).toBe('0');
      expect(await storedMedia(node()).resumableBytes(idOf(location))).toBe(0);
      expect((await tusRequest(url(), 'DELETE', location, { token: owner.token })).status).toBe(204);
    },
  );

  it('should refuse a second PATCH while one is writing (409), and keep the first', { timeout: 120_000 }, async () => {
    const contentId = await createContent(owner);
    const { location } = await createUpload(url(), owner.token, video.length, mainVideo(contentId));
    const first = openPatch(url(), owner.token, location, 0, video, 4000);
    await first.written;
    // The first PATCH holds the upload's lease while it writes.
    await leaseTaken(node(), location);
    // A second PATCH at the offset the upload reports is refused, whatever that offset is.
    const at = Number((await headUpload(url(), owner.token, location)).headers.get('upload-offset'));
    const second = await patchUpload(url(), owner.token, location, at, video.subarray(at));
    expectTusError(second, 409, 'upload.error.busy');
    const again = await patchUpload(url(), owner.token, location, 0, video);
    expect(again.status).toBe(409);

    const answer = await first.finish();
    expect(answer.status).toBe(204);
    expect(answer.headers['upload-offset']).toBe(String(video.length));
    expect((await waitForJobEnd(node(), contentId)).status).toBe('completed');
  });

  describe('a file refused when its last byte arrives', () => {
    const refusals: [string, () => Buffer, string][] = [
      ['a text file', () => Buffer.from('just some text, not a video at all\n'.repeat(40)), 'file.error.invalid_type'],
      ['text behind an MP4 signature', () => fakeMp4(), 'file.error.unreadable'],
      ['a DASH manifest posing as an MP4', () => manifestPosingAsMp4(path.join(scratch, 'tour.mp4')), 'file.error.unreadable'],
    ];

    it.each(refusals)('should answer the last PATCH of %s with the §7 envelope, then 404, keeping nothing', async (_name, make, code) => {
      const bytes = make();
      const contentId = await createContent(owner);
      const before = await contentVideo(node(), contentId);
      const { location } = await createUpload(url(), owner.token, bytes.length, mainVideo(contentId));
      const half = Math.floor(bytes.length / 2);
      expect((await patchUpload(url(), owner.token, location, 0, bytes.subarray(0, half))).status).toBe(204);

      const last = await patchUpload(url(), owner.token, location, half, bytes.subarray(half));
      expectTusError(last, 400, code);
      expect(last.headers.get('upload-expires')).toBeNull();

      expect((await headUpload(url(), owner.token, location)).status).toBe(404);
      expectTusError(await patchUpload(url(), owner.token, location, bytes.length, Buffer.alloc(0)), 404, 'upload.error.not_found');
      expect(await resumableFiles(node())).not.toContain(idOf(location));
      expect(await uploadRow(idOf(location))).toBeNull();
      expect(await contentVideo(node(), contentId)).toEqual(before);
      expect(await latestJob(node(), contentId)).toBeNull();
    });

    it('should answer a creation-with-upload of a refused image the same way', async () => {
      const gif = await makeImage('gif');
      const contentId = await createContent(owner);
      const before = await contentVideo(node(), contentId);
      const answer = await createUpload(url(), owner.token, gif.length, { content_id: contentId, topic_key: 'video_images_url', filename: 'a.gif' }, gif);
      expectTusError(answer, 400, 'file.error.invalid_type');
      expect(answer.location).toBe('');
      expect(await contentVideo(node(), contentId)).toEqual(before);
      expect(await node().app.database.rows(sql`select id from resumable_uploads where content_id = ${contentId}`)).toEqual([]);
    });
  });

  it('should resume a transfer cut off mid-chunk from the offset the server reports, and complete the item (tus-js-client)', { timeout: 120_000 }, async () => {
    const contentId = await createContent(owner);
    // The first connection that carries more than half the video towards the node is dropped.
    const proxy = await cuttingProxy(url(), Math.floor(video.length / 2));
    try {
      const { url: uploadUrl, requests } = await uploadWithClient(proxy.url + RESUMABLE, owner.token, video, mainVideo(contentId), {
        chunkSize: Math.ceil(video.length * 0.8),
      });
      expect(proxy.cuts()).toBe(1);
      // The client asked where to resume (HEAD) and went on from exactly there: the bytes that
      // reached the node before the cut were kept. (While the cut PATCH is still being wound up
      // on the node, a resumed one is refused with 409 and the client asks again.)
      const resumed = requests.findIndex((r) => r.method === 'PATCH' && r.status === 204);
      const asked = requests
        .slice(0, resumed)
        .reverse()
        .find((r) => r.method === 'HEAD');
      expect(asked?.status).toBe(200);
      const reported = Number(asked?.responseOffset);
      expect(reported).toBeGreaterThan(0);
      expect(reported).toBeLessThan(video.length);
      expect(Number(requests[resumed].offset)).toBe(reported);
      expect(new URL(uploadUrl).pathname).toMatch(new RegExp(`^${RESUMABLE}/[0-9a-f-]{36}$`));
    } finally {
      await proxy.close();
    }
    const job = await waitForJobEnd(node(), contentId);
    expect(job.status).toBe('completed');
    const item = await contentVideo(node(), contentId);
    expect(item.status).toBe('completed');
    expect(item.video.original_name).toBe('tour.mp4');
    expect(item.video.size).toBe(video.length);
  });

  it('should keep the bytes of a PATCH cut off mid-body up to the last byte received', { timeout: 120_000 }, async () => {
    const contentId = await createContent(owner);
    const created = await createUpload(url(), owner.token, video.length, mainVideo(contentId));
    const expires = created.headers.get('upload-expires');
    expect(Number.isNaN(Date.parse(expires ?? ''))).toBe(false);

    const sent = 7_777;
    await openPatch(url(), owner.token, created.location, 0, video, sent).cut();
    await offsetReaches(url(), owner.token, created.location, sent);
    const head = await headUpload(url(), owner.token, created.location);
    expect(head.headers.get('upload-length')).toBe(String(video.length));
    expect(head.headers.get('upload-expires')).toBe(expires);
    expect(head.headers.get('cache-control')).toBe('no-store');

    const rest = await patchUpload(url(), owner.token, created.location, sent, video.subarray(sent));
    expect(rest.status).toBe(204);
    expect(rest.headers.get('upload-offset')).toBe(String(video.length));
    expect(await resumableFiles(node())).not.toContain(idOf(created.location));
    // A finished upload still tells a client that lost the last answer that it is complete.
    const done = await headUpload(url(), owner.token, created.location);
    expect(done.status).toBe(200);
    expect(done.headers.get('upload-offset')).toBe(String(video.length));
    expectTusError(await patchUpload(url(), owner.token, created.location, video.length, Buffer.alloc(1)), 409, 'upload.error.completed');
    expect((await waitForJobEnd(node(), contentId)).status).toBe('completed');
    // The file the job read is the one sent, byte for byte.
    expect((await storedMedia(node()).read(`content/${contentId}/original.mp4`)).equals(video)).toBe(true);
  });

  it('should add extra media (topic_key) as the multipart form does, with Upload-Expires on every answer', async () => {
    const contentId = await createContent(owner);
    const png = await makeImage('png', 80, 60);
    const created = await createUpload(url(), owner.token, png.length, { content_id: contentId, topic_key: 'video_images_url', filename: 'kitchen.png' });
    expect(created.status).toBe(201);
    const expires = created.headers.get('upload-expires');
    const first = await patchUpload(url(), owner.token, created.location, 0, png.subarray(0, 100));
    expect(first.headers.get('upload-expires')).toBe(expires);
    const last = await patchUpload(url(), owner.token, created.location, 100, png.subarray(100));
    expect(last.status).toBe(204);
    const item = await owner.api.get(`/api/v1/content/${contentId}`);
    expect(item.status).toBe(200);
    const images = (await node().app.database.rows<{ images: { name: string }[] }>(sql`select images from contents where id = ${contentId}`))[0].images;
    expect(images.map((i) => i.name)).toEqual(['kitchen.png']);
  });

  it('should take a whole small upload in its creation request (creation-with-upload)', { timeout: 120_000 }, async () => {
    const contentId = await createContent(owner);
    const answer = await createUpload(url(), owner.token, video.length, mainVideo(contentId), video);
    expect(answer.status).toBe(201);
    expect(answer.headers.get('upload-offset')).toBe(String(video.length));
    expect(answer.headers.get('upload-expires')).toBeNull();
    expect((await waitForJobEnd(node(), contentId)).status).toBe('completed');
  });

  it('should end an upload on DELETE: its bytes go, then 404', async () => {
    const contentId = await createContent(owner);
    const { location } = await createUpload(url(), owner.token, video.length, mainVideo(contentId));
    const patched = await patchUpload(url(), owner.token, location, 0, video.subarray(0, 3000));
    expect(patched.status).toBe(204);
    expect(await resumableFiles(node())).toContain(idOf(location));

    const ended = await tusRequest(url(), 'DELETE', location, { token: owner.token });
    expect(ended.status).toBe(204);
    // A DELETE counts against the general limit as any request; a PATCH against none.
    expect(ended.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect(patched.headers.get('x-ratelimit-limit')).toBeNull();
    expect(await resumableFiles(node())).not.toContain(idOf(location));
    expect((await headUpload(url(), owner.token, location)).status).toBe(404);
    expect(await uploadRow(idOf(location))).toBeNull();
  });
});
