// GET/HEAD /media/* over the real server: types, ranges, validators, cache lifetimes, traversal.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/fixture.js';
import type { TestServer } from '../helpers/server.js';
import { expectErrorEnvelope, ApiClient } from '../helpers/api.js';
import { rawRequest } from './media-helpers.js';
import { storedMedia } from '../helpers/stored-media.js';

const booted = useTestServer({ VIDEO_WORKERS: '0' });
let server: TestServer;
const segment = randomBytes(300_000);
const big = randomBytes(3 * 1024 * 1024 + 17);

/** Stores `data` at `key` where the node keeps its media (MEDIA_DIR or the bucket). */
const put = (key: string, data: Buffer | string) => storedMedia(server.service).write(key, data);

beforeAll(async () => {
  server = booted.current;
  await put('content/c1/hls/master.m3u8', '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=880000,RESOLUTION=640x360\n360p/index.m3u8\n');
  await put('content/c1/hls/360p/abcd12341_000.ts', segment);
  await put('content/c1/hls/360p/part_000.m4s', segment.subarray(0, 1000));
  await put('content/c1/original.mp4', big);
  await put('content/c1/thumbnail-abcd12341.jpg', Buffer.from([0xff, 0xd8, 0xff, 0xe0]));
  await put('uploads/u1/3f0c7a52-1d2e-4f7a-9b1c-0d9e8f7a6b5c.png', Buffer.from('png'));
  await put('uploads/u1/3f0c7a52-1d2e-4f7a-9b1c-0d9e8f7a6b5c.webp', Buffer.from('webp'));
  await put('docs/deed.pdf', Buffer.from('%PDF-1.4'));
  await put('content/c1/.work-job-1/secret.ts', Buffer.from('unfinished'));
  await put('content/c1/empty.ts', Buffer.alloc(0));
  // Something outside MEDIA_DIR that traversal attempts aim at, and a link out of it. In the
  // bucket, keys at its root (where the resumable uploads' objects live) are never served either.
  fs.writeFileSync(path.join(server.dataDir, 'outside.txt'), 'do not serve');
  if (storedMedia(server.service).kind === 'local') {
    fs.symlinkSync(path.join(server.dataDir, 'outside.txt'), path.join(server.service.config.mediaDir, 'link.txt'));
  } else {
    await put('outside.txt', 'do not serve');
    await put('link.txt', 'do not serve');
  }
});

const get = (p: string, headers: Record<string, string> = {}) => fetch(server.url + p, { headers });

describe('media serving', () => {
  it('should fail with 416 for an unsatisfiable range', async () => {
    const res = await get('/media/content/c1/original.mp4', { range: `bytes=${big.length}-` });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${big.length}`);
    expect((await res.json()).error_code).toBe('media.error.range_not_satisfiable');
    expect((await get('/media/content/c1/empty.ts', { range: 'bytes=0-1' })).status).toBe(416);
  });

  it('should fail with 404 and the error envelope for missing files and directories', async () => {
    const api = new ApiClient(server.url);
    expectErrorEnvelope(await api.get('/media/content/c1/nope.ts'), 404, 'media.error.not_found');
    expectErrorEnvelope(await api.get('/media/content/c1/hls'), 404);
    expectErrorEnvelope(await api.get('/media/content/c1/hls/'), 404);
  });

  it('should fail for path traversal, encoded separators, hidden work files and symlinks out of MEDIA_DIR', async () => {
    const attempts = [
      '/media/../outside.txt',
      '/media/content/../../outside.txt',
      '/media/%2e%2e/outside.txt',
      '/media/..%2foutside.txt',
      '/media/..%2Foutside.txt',
      '/media/content%2fc1%2foriginal.mp4',
      '/media/..%5coutside.txt',
      '/media//etc/passwd',
      '/media/%2fetc%2fpasswd',
      '/media/content/c1/.work-job-1/secret.ts',
      '/media/content/c1/original.mp4%00.jpg',
      '/media/link.txt',
      '/media/%',
    ];
    for (const p of attempts) {
      const res = await rawRequest(server.url, { path: p });
      expect(res.status, p).toBe(404);
      expect(res.body.toString()).not.toContain('do not serve');
    }
  });

  it('should serve each kind with its content type and cache lifetime', async () => {
    const cases: [string, string, RegExp][] = [
      ['/media/content/c1/hls/master.m3u8', 'application/vnd.apple.mpegurl', /max-age=10$/],
      ['/media/content/c1/hls/360p/abcd12341_000.ts', 'video/mp2t', /immutable/],
      ['/media/content/c1/hls/360p/part_000.m4s', 'video/iso.segment', /immutable/],
      ['/media/content/c1/original.mp4', 'video/mp4', /max-age=3600$/],
      ['/media/content/c1/thumbnail-abcd12341.jpg', 'image/jpeg', /immutable/],
      ['/media/uploads/u1/3f0c7a52-1d2e-4f7a-9b1c-0d9e8f7a6b5c.png', 'image/png', /immutable/],
      ['/media/uploads/u1/3f0c7a52-1d2e-4f7a-9b1c-0d9e8f7a6b5c.webp', 'image/webp', /immutable/],
      ['/media/docs/deed.pdf', 'application/pdf', /max-age=3600$/],
    ];
    for (const [p, type, cache] of cases) {
      const res = await get(p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type'), p).toBe(type);
      expect(res.headers.get('cache-control'), p).toMatch(cache);
      expect(res.headers.get('accept-ranges')).toBe('bytes');
      // The disk's ETag is size-mtime; the bucket's is the store's own (an MD5, or MD5-parts).
      expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]+(-[0-9a-f]+)?"$/);
      expect(res.headers.get('last-modified')).toBeTruthy();
      await res.arrayBuffer();
    }
  });

  it('should stream a large file whole and intact', async () => {
    const res = await get('/media/content/c1/original.mp4');
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBe(big.length);
    expect(Buffer.from(await res.arrayBuffer()).equals(big)).toBe(true);
  });

  it('should answer byte ranges with 206 and Content-Range', async () => {
    const first = await get('/media/content/c1/original.mp4', { range: 'bytes=0-99' });
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe(`bytes 0-99/${big.length}`);
    expect(Buffer.from(await first.arrayBuffer()).equals(big.subarray(0, 100))).toBe(true);

    const open = await get('/media/content/c1/original.mp4', { range: `bytes=${big.length - 10}-` });
    expect(open.status).toBe(206);
    expect(Buffer.from(await open.arrayBuffer()).equals(big.subarray(big.length - 10))).toBe(true);

    const suffix = await get('/media/content/c1/hls/360p/abcd12341_000.ts', { range: 'bytes=-500' });
    expect(suffix.status).toBe(206);
    expect(suffix.headers.get('content-range')).toBe(`bytes ${segment.length - 500}-${segment.length - 1}/${segment.length}`);
    expect(Buffer.from(await suffix.arrayBuffer()).equals(segment.subarray(segment.length - 500))).toBe(true);

    const past = await get('/media/content/c1/original.mp4', { range: `bytes=100-${big.length + 1000}` });
    expect(past.status).toBe(206);
    expect(past.headers.get('content-range')).toBe(`bytes 100-${big.length - 1}/${big.length}`);
    expect((await past.arrayBuffer()).byteLength).toBe(big.length - 100);
  });

  it('should ignore a malformed or multi-part range and send the whole file', async () => {
    for (const range of ['bytes=abc', 'items=0-1', 'bytes=0-1,5-9']) {
      const res = await get('/media/content/c1/hls/360p/part_000.m4s', { range });
      expect(res.status, range).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBe(1000);
    }
  });

  it('should answer 304 to If-None-Match and If-Modified-Since, and honour If-Range', async () => {
    const first = await get('/media/content/c1/hls/master.m3u8');
    const etag = first.headers.get('etag')!;
    const lastModified = first.headers.get('last-modified')!;
    await first.arrayBuffer();
    const byEtag = await get('/media/content/c1/hls/master.m3u8', { 'if-none-match': etag });
    expect(byEtag.status).toBe(304);
    expect(byEtag.headers.get('etag')).toBe(etag);
    expect(await byEtag.text()).toBe('');
    expect((await get('/media/content/c1/hls/master.m3u8', { 'if-none-match': `"other", ${etag}` })).status).toBe(304);
    expect((await get('/media/content/c1/hls/master.m3u8', { 'if-modified-since': lastModified })).status).toBe(304);
    const changed = await get('/media/content/c1/hls/master.m3u8', { 'if-none-match': '"stale"' });
    expect(changed.status).toBe(200);
    await changed.arrayBuffer();

    const staleRange = await get('/media/content/c1/original.mp4', { range: 'bytes=0-9', 'if-range': '"stale"' });
    expect(staleRange.status).toBe(200);
    await staleRange.arrayBuffer();
    const bigEtag = (await fetch(server.url + '/media/content/c1/original.mp4', { method: 'HEAD' })).headers.get('etag')!;
    const currentRange = await get('/media/content/c1/original.mp4', { range: 'bytes=0-9', 'if-range': bigEtag });
    expect(currentRange.status).toBe(206);
    await currentRange.arrayBuffer();
  });

  it('should answer HEAD with the headers and no body', async () => {
    const res = await rawRequest(server.url, { method: 'HEAD', path: '/media/content/c1/original.mp4' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('video/mp4');
    expect(Number(res.headers['content-length'])).toBe(big.length);
    expect(res.body.length).toBe(0);
  });

  it('should serve URL-encoded names', async () => {
    await put('docs/tên tài liệu.pdf', Buffer.from('%PDF-1.4 x'));
    const res = await get(`/media/docs/${encodeURIComponent('tên tài liệu.pdf')}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('%PDF-1.4 x');
  });
});
