// POST /file-processing/api/v1/upload over the real server: both forms, every error status.
import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { ApiClient, expectErrorEnvelope, loginAdmin, registerAndLogin, type TestUser } from '../helpers/api.js';
import { UPLOAD, createContent, fakeMp4, form, makeImage, makePdf, makeVideo, onServer, scratchDir } from './media-helpers.js';
import { storedMedia } from '../helpers/stored-media.js';

/** Sends only the request head of an upload declaring `length` bytes; resolves with what came back before the server closed. */
function sendHeadOnly(baseUrl: string, length: number): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () =>
      socket.write(
        `POST ${UPLOAD} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer x\r\n` +
          `Content-Type: multipart/form-data; boundary=x\r\nContent-Length: ${length}\r\n\r\n`,
      ),
    );
    let reply = '';
    socket.on('data', (chunk) => (reply += chunk.toString()));
    socket.on('close', () => resolve(reply));
    socket.on('error', reject);
  });
}

// No workers: these tests look at uploads, not at processing.
const booted = useTestServer({ VIDEO_WORKERS: '0' });
let server: TestServer;
let owner: TestUser;
let other: TestUser;
let video: Buffer;
const scratch = scratchDir();

beforeAll(async () => {
  server = booted.current;
  owner = await registerAndLogin(server);
  other = await registerAndLogin(server);
  video = await makeVideo(path.join(scratch, 'clip.mp4'), { seconds: 1 });
});
afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('general upload', () => {
  it('should fail without a token', async () => {
    const png = await makeImage('png');
    const anonymous = await new ApiClient(server.url).request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'image' },
        { name: 'file', value: png, filename: 'a.png' },
      ]),
    });
    expectErrorEnvelope(anonymous, 401);
  });

  it('should fail with a bad token', async () => {
    const png = await makeImage('png');
    const bad = await new ApiClient(server.url, 'not-a-token').request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'image' },
        { name: 'file', value: png, filename: 'a.png' },
      ]),
    });
    expectErrorEnvelope(bad, 401);
  });

  it('should fail without a type or with an unknown one', async () => {
    const png = await makeImage('png');
    const noType = await owner.api.request('POST', UPLOAD, { rawBody: form([{ name: 'file', value: png, filename: 'a.png' }]) });
    expect(expectErrorEnvelope(noType, 400).details?.field).toBe('type');
    const badType = await owner.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'audio' },
        { name: 'file', value: png, filename: 'a.png' },
      ]),
    });
    expect(expectErrorEnvelope(badType, 400).details?.field).toBe('type');
  });

  it('should fail without a file', async () => {
    const noFile = await owner.api.request('POST', UPLOAD, { rawBody: form([{ name: 'type', value: 'image' }]) });
    expectErrorEnvelope(noFile, 400, 'file.error.missing_file');
  });

  it('should fail with metadata that is not a JSON object', async () => {
    const png = await makeImage('png');
    const badMetadata = await owner.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'image' },
        { name: 'metadata', value: '[1,2]' },
        { name: 'file', value: png, filename: 'a.png' },
      ]),
    });
    expect(expectErrorEnvelope(badMetadata, 400, 'file.error.invalid_metadata').details?.field).toBe('metadata');
  });

  it('should fail with two files', async () => {
    const png = await makeImage('png');
    const twoFiles = await owner.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'image' },
        { name: 'file', value: png, filename: 'a.png' },
        { name: 'file', value: png, filename: 'b.png' },
      ]),
    });
    expectErrorEnvelope(twoFiles, 400, 'file.error.too_many_files');
  });

  it('should fail with a JSON body with 415', async () => {
    const json = await owner.api.post(UPLOAD, { type: 'image' });
    expectErrorEnvelope(json, 415);
  });

  it('should fail with 400 file.error.invalid_type for a text file posing as an .mp4 video', async () => {
    const res = await owner.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'video' },
        { name: 'file', value: Buffer.from('just some text, not a video\n'), filename: 'tour.mp4', type: 'video/mp4' },
      ]),
    });
    const err = expectErrorEnvelope(res, 400, 'file.error.invalid_type');
    expect(err.details?.field).toBe('file');
  });

  it('should fail with GIF images (only jpeg, png, webp), a video sent as an image and a PDF sent as a video', async () => {
    const gif = await makeImage('gif');
    const asGif = await owner.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'image' },
        { name: 'file', value: gif, filename: 'a.gif', type: 'image/gif' },
      ]),
    });
    expectErrorEnvelope(asGif, 400, 'file.error.invalid_type');
    const videoAsImage = await owner.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'image' },
        { name: 'file', value: video, filename: 'a.jpg', type: 'image/jpeg' },
      ]),
    });
    expectErrorEnvelope(videoAsImage, 400, 'file.error.invalid_type');
    const pdfAsVideo = await owner.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'video' },
        { name: 'file', value: makePdf(), filename: 'a.mp4' },
      ]),
    });
    expectErrorEnvelope(pdfAsVideo, 400, 'file.error.invalid_type');
  });

  it('should store an image and answer 201 with its measured metadata', async () => {
    const png = await makeImage('png', 64, 48);
    const res = await owner.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'image' },
        { name: 'metadata', value: JSON.stringify({ caption: 'living room' }) },
        { name: 'file', value: png, filename: 'room.png', type: 'image/png' },
      ]),
    });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const d = res.body.data;
    expect(d).toMatchObject({ type: 'image', size: png.length, processing_status: 'completed', metadata: { width: 64, height: 48, format: 'png' } });
    expect(d.file_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(d.url).toMatch(new RegExp(`/media/uploads/${owner.userId}/${d.file_id}\\.png$`));
    const served = await fetch(onServer(server.url, d.url));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
    const rows = await server.service.app.database.rows<{ user_id: string; kind: string; client_metadata: unknown }>(
      sql`select user_id, kind, client_metadata from uploaded_files where id = ${d.file_id}`,
    );
    expect(rows[0]).toMatchObject({ user_id: owner.userId, kind: 'image', client_metadata: { caption: 'living room' } });
  });

  it('should accept jpeg and webp images, measured by sharp', async () => {
    for (const format of ['jpeg', 'webp'] as const) {
      const img = await makeImage(format, 30, 20);
      const res = await owner.api.request('POST', UPLOAD, {
        rawBody: form([
          { name: 'type', value: 'image' },
          { name: 'file', value: img, filename: `a.${format}` },
        ]),
      });
      expect(res.status).toBe(201);
      expect(res.body.data.metadata).toEqual({ width: 30, height: 20, format });
    }
  });

  it('should store a video with its ffprobe size', async () => {
    const res = await owner.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'video' },
        { name: 'file', value: video, filename: 'clip.mp4', type: 'video/mp4' },
      ]),
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ type: 'video', size: video.length, metadata: { width: 320, height: 240, format: 'mp4' } });
    expect(res.body.data.url).toMatch(/\.mp4$/);
  });

  it('should store a PDF document with null width and height', async () => {
    const pdf = makePdf();
    const res = await owner.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'document' },
        { name: 'file', value: pdf, filename: 'title-deed.pdf' },
      ]),
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ type: 'document', size: pdf.length, metadata: { width: null, height: null, format: 'pdf' } });
    const served = await fetch(onServer(server.url, res.body.data.url));
    expect(served.headers.get('content-type')).toBe('application/pdf');
  });
});

describe('upload attached to a content item', () => {
  it('should fail with 404 for an unknown or deleted content id and 400 for a malformed one', async () => {
    const img = await makeImage('jpeg');
    const unknown = await owner.api.request('POST', `${UPLOAD}?id=00000000-0000-4000-8000-000000000000`, {
      rawBody: form([{ name: 'files', value: video, filename: 'a.mp4' }]),
    });
    expectErrorEnvelope(unknown, 404);
    const malformed = await owner.api.request('POST', `${UPLOAD}?id=not-a-uuid&topic-key=video_images_url`, {
      rawBody: form([{ name: 'files', value: img, filename: 'a.jpg' }]),
    });
    expect(expectErrorEnvelope(malformed, 400, 'file.error.invalid_content_id').details?.field).toBe('id');
    const deleted = await createContent(owner);
    await server.service.app.database.rows(sql`update contents set deleted_at = now() where id = ${deleted}`);
    const toDeleted = await owner.api.request('POST', `${UPLOAD}?id=${deleted}`, { rawBody: form([{ name: 'files', value: video, filename: 'a.mp4' }]) });
    expectErrorEnvelope(toDeleted, 404);
  });

  it("should fail with 403 for another user's content, and let an administrator upload", async () => {
    const contentId = await createContent(owner);
    const img = await makeImage('jpeg');
    const res = await other.api.request('POST', `${UPLOAD}?id=${contentId}&topic-key=video_images_url`, {
      rawBody: form([{ name: 'files', value: img, filename: 'a.jpg' }]),
    });
    expectErrorEnvelope(res, 403, 'file.error.not_owner');
    const videoRes = await other.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: video, filename: 'a.mp4' }]) });
    expectErrorEnvelope(videoRes, 403, 'file.error.not_owner');
    const admin = await loginAdmin(server);
    const byAdmin = await admin.api.request('POST', `${UPLOAD}?id=${contentId}&topic-key=video_images_url`, {
      rawBody: form([{ name: 'files', value: img, filename: 'a.jpg' }]),
    });
    expect(byAdmin.status).toBe(201);
  });

  it('should fail with a main video that is not a video by its bytes', async () => {
    const contentId = await createContent(owner);
    const png = await makeImage('png');
    const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, {
      rawBody: form([{ name: 'files', value: png, filename: 'tour.mp4', type: 'video/mp4' }]),
    });
    expectErrorEnvelope(res, 400, 'file.error.invalid_type');
  });

  it('should fail with non-images, more than 10 per request and more than 20 per item', async () => {
    const contentId = await createContent(owner);
    const img = await makeImage('jpeg');
    const notImage = await owner.api.request('POST', `${UPLOAD}?id=${contentId}&topic-key=video_images_url`, {
      rawBody: form([{ name: 'files', value: makePdf(), filename: 'a.jpg' }]),
    });
    expectErrorEnvelope(notImage, 400, 'file.error.invalid_type');
    const eleven = Array.from({ length: 11 }, (_, i) => ({ name: 'files', value: img, filename: `${i}.jpg` }));
    const tooMany = await owner.api.request('POST', `${UPLOAD}?id=${contentId}&topic-key=video_images_url`, { rawBody: form(eleven) });
    expectErrorEnvelope(tooMany, 400, 'file.error.too_many_files');
    const ten = eleven.slice(0, 10);
    expect((await owner.api.request('POST', `${UPLOAD}?id=${contentId}&topic-key=video_images_url`, { rawBody: form(ten) })).status).toBe(201);
    expect((await owner.api.request('POST', `${UPLOAD}?id=${contentId}&topic-key=video_images_url`, { rawBody: form(ten) })).status).toBe(201);
    const twentyFirst = await owner.api.request('POST', `${UPLOAD}?id=${contentId}&topic-key=video_images_url`, {
      rawBody: form([{ name: 'files', value: img, filename: 'x.jpg' }]),
    });
    expectErrorEnvelope(twentyFirst, 400, 'file.error.too_many_images');
  });

  it('should store the main video as the original and queue its processing', async () => {
    const contentId = await createContent(owner);
    const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, {
      rawBody: form([{ name: 'files', value: video, filename: 'tour.mp4', type: 'video/mp4' }]),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String) });
    const rows = await server.service.app.database.rows<{ status: string; video: any }>(sql`select status, video from contents where id = ${contentId}`);
    expect(rows[0].status).toBe('processing');
    expect(rows[0].video).toMatchObject({ status: 'processing', original_path: `content/${contentId}/original.mp4`, size: video.length });
    expect(await storedMedia(server.service).exists(`content/${contentId}/original.mp4`)).toBe(true);
    const jobs = await server.service.app.database.rows<{ status: string }>(sql`select status from video_jobs where content_id = ${contentId}`);
    expect(jobs).toEqual([{ status: 'queued' }]);

    // A second upload replaces the first: still one live job.
    const again = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: video, filename: 'tour2.mp4' }]) });
    expect(again.status).toBe(200);
    const live = await server.service.app.database.rows<{ n: number }>(
      sql`select count(*)::int as n from video_jobs where content_id = ${contentId} and status = 'queued'`,
    );
    expect(live[0].n).toBe(1);
  });

  it('should append extra images and answer a JSON array of {url}', async () => {
    const contentId = await createContent(owner);
    const a = await makeImage('jpeg');
    const b = await makeImage('png');
    const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}&topic-key=video_images_url`, {
      rawBody: form([
        { name: 'files', value: a, filename: 'kitchen.jpg' },
        { name: 'files', value: b, filename: 'balcony.png' },
      ]),
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual([{ url: expect.stringMatching(/\/media\/content\/.+\.jpg$/) }, { url: expect.stringMatching(/\.png$/) }]);
    for (const item of res.body) expect((await fetch(onServer(server.url, item.url))).status).toBe(200);
    const rows = await server.service.app.database.rows<{ images: any[] }>(sql`select images from contents where id = ${contentId}`);
    expect(rows[0].images.map((i) => i.name)).toEqual(['kitchen.jpg', 'balcony.png']);
    expect(rows[0].images[0]).toEqual({ id: expect.any(String), path: expect.stringMatching(`^content/${contentId}/images/`), name: 'kitchen.jpg' });

    const more = await owner.api.request('POST', `${UPLOAD}?id=${contentId}&topic-key=video_images_url`, {
      rawBody: form([{ name: 'files', value: a, filename: 'hall.jpg' }]),
    });
    expect(more.status).toBe(201);
    const after = await server.service.app.database.rows<{ images: any[] }>(sql`select images from contents where id = ${contentId}`);
    expect(after[0].images.map((i) => i.name)).toEqual(['kitchen.jpg', 'balcony.png', 'hall.jpg']);
  });

  it('should accept a file with an MP4 signature that no tool can decode (processing will fail it)', async () => {
    const contentId = await createContent(owner);
    const res = await owner.api.request('POST', `${UPLOAD}?id=${contentId}`, { rawBody: form([{ name: 'files', value: fakeMp4(), filename: 'fake.mp4' }]) });
    expect(res.status).toBe(200);
  });
});

describe('limits', () => {
  const limitedServer = useTestServer({ VIDEO_WORKERS: '0', RATE_LIMIT_SCALE: '1', MAX_IMAGE_BYTES: '20000' });
  let limited: TestServer;
  beforeAll(() => {
    limited = limitedServer.current;
  });

  it('should fail with 413 for a declared 600 MB body before reading it (and before authentication)', async () => {
    const reply = await sendHeadOnly(limited.url, 600_000_000);
    expect(reply).toMatch(/^HTTP\/1\.1 413 /);
    const body = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({ success: false, error_code: 'request.error.body_too_large' });
  });

  it('should refuse a declared 2 GB body at once without reading it', async () => {
    // uWebSockets.js refuses a Content-Length of 10 or more digits in its parser: it closes the
    // connection before our code runs, with no status line (see docs/media.md). Either way
    // nothing of the body is read and the server keeps serving.
    const reply = await sendHeadOnly(limited.url, 2 * 1024 * 1024 * 1024);
    expect(reply === '' || /^HTTP\/1\.1 413 /.test(reply)).toBe(true);
    expect((await new ApiClient(limited.url).get('/healthz')).status).toBe(200);
  });

  it('should fail with 413 for an image over MAX_IMAGE_BYTES, and 429 for the 6th upload in a minute', async () => {
    // One user only: with RATE_LIMIT_SCALE=1 the auth endpoints allow 5 requests a minute per IP.
    const user = await registerAndLogin(limited);
    // Random pixels do not compress: well over 20 000 bytes.
    const big = await sharp(randomBytes(200 * 200 * 3), { raw: { width: 200, height: 200, channels: 3 } })
      .png()
      .toBuffer();
    expect(big.length).toBeGreaterThan(20000);
    const tooLarge = await user.api.request('POST', UPLOAD, {
      rawBody: form([
        { name: 'type', value: 'image' },
        { name: 'file', value: big, filename: 'big.png' },
      ]),
    });
    const err = expectErrorEnvelope(tooLarge, 413, 'file.error.too_large');
    expect(err.details?.field).toBe('file');
    expect(tooLarge.headers.get('x-ratelimit-limit')).toBe('5');

    const small = await makeImage('png');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await user.api.request('POST', UPLOAD, {
        rawBody: form([
          { name: 'type', value: 'image' },
          { name: 'file', value: small, filename: 'a.png' },
        ]),
      });
      statuses.push(res.status);
      if (res.status === 429) expectErrorEnvelope(res, 429);
    }
    expect(statuses).toEqual([201, 201, 201, 201, 429]);
  });
});
